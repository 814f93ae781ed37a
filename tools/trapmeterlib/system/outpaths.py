"""The one output rule of every command, checked before any work: an
output is not a directory, not an input of the same command and not
another output of it (a character device such as /dev/null takes any
number of outputs).  Pure file-system look-ups: nothing is written."""

import os
import stat

from ..values.errors import OptionError


def _identity(path):
    """(what the path names, whether it is a character device): the file's
    (device, inode) when it exists, else its real path.  A directory is
    refused; a character device (/dev/null) takes any number of outputs."""
    try:
        info = os.stat(path)
    except OSError:
        return os.path.realpath(path), False
    if stat.S_ISDIR(info.st_mode):
        raise OptionError("%s: is a directory" % path)
    return (info.st_dev, info.st_ino), stat.S_ISCHR(info.st_mode)


def check_outputs(inputs, outputs):
    """inputs: [(name, path)]; outputs: [(option, path or None)]; an
    OptionError names the first output that breaks the rule."""
    seen = {}
    for name, path in inputs:
        try:
            info = os.stat(path) if path else None
        except OSError:
            info = None             # its reader names an unreadable input
        if info is not None and not stat.S_ISCHR(info.st_mode):
            seen.setdefault((info.st_dev, info.st_ino),
                            "an input (%s)" % name)
    for option, path in outputs:
        if not path:
            continue
        key, device = _identity(path)
        if device:
            continue
        if key in seen:
            raise OptionError("%s %s is also %s: refusing to overwrite it"
                              % (option, path, seen[key]))
        seen[key] = "the output of " + option
