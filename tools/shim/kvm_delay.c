/*
 * tools/shim/kvm_delay.c - an LD_PRELOAD shim that makes every exit to QEMU
 * slower by a known number of nanoseconds (a regression of known size, for
 * `trapmeter sensitivity` and `make acceptance`).
 *
 * QEMU runs a vCPU by calling ioctl(vcpu_fd, KVM_RUN).  The call returns to
 * QEMU when KVM needs userspace: kvm_run->exit_reason says why.  Exits that
 * KVM answers itself (an in-kernel PIC, ELCR, CPUID) never return here, so
 * they stay untouched.  After a return whose reason is KVM_EXIT_IO or
 * KVM_EXIT_MMIO this shim busy-waits (clock_gettime, never sleeps: a sleep
 * would hand the core away and add scheduler noise) for the delay, then
 * returns to QEMU.  An interrupted KVM_RUN (-1/EINTR, KVM_EXIT_INTR) and
 * every other exit reason are counted but not delayed.
 *
 * kvm_run is the vCPU fd's mmap at offset 0 (linux/kvm.h): the shim
 * remembers which fds KVM_CREATE_VCPU returned and where QEMU mapped them.
 *
 * Environment:
 *   TRAPMETER_DELAY_NS       delay per I/O or MMIO exit, 0..10000000 (0:
 *                            count only)
 *   TRAPMETER_DELAY_REPORT   file written at exit with what was delayed,
 *                            one JSON object: {"shim":"kvm_delay", ...}
 * The report is also written (with "loaded":true and zero counts) when the
 * shim is loaded, so a QEMU that never calls KVM_RUN through the dynamic
 * ioctl (TCG, a static build) is told apart from one that never loaded it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 4096
#define MAX_DELAY_NS 10000000L

typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef void *(*mmap64_fn)(void *, size_t, int, int, int, off64_t);

static ioctl_fn real_ioctl;
static mmap_fn real_mmap;
static mmap64_fn real_mmap64;
static long delay_ns;
static const char *report_path;
/* per fd: 1 = a vCPU fd; its kvm_run mapping once QEMU maps it */
static _Atomic unsigned char vcpu_fd[MAX_FDS];
static struct kvm_run *_Atomic vcpu_run[MAX_FDS];

static atomic_ulong n_vcpus;        /* KVM_CREATE_VCPU calls that worked */
static atomic_ulong n_runs;         /* KVM_RUN returns seen */
static atomic_ulong n_io;           /* delayed: KVM_EXIT_IO */
static atomic_ulong n_mmio;         /* delayed: KVM_EXIT_MMIO */
static atomic_ulong n_other;        /* other reasons, not delayed */
static atomic_ulong n_intr;         /* -1 returns (EINTR ...), not delayed */
static atomic_ulong n_unmapped;     /* KVM_RUN on an fd we never saw mapped */
static atomic_ulong spun_ns;        /* total time spent spinning */

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Busy-wait: the vCPU thread keeps its core, as a slower exit path would. */
static void spin(long ns)
{
    uint64_t start = now_ns(), end = start + (uint64_t)ns, t;

    do
        t = now_ns();
    while (t < end);
    atomic_fetch_add(&spun_ns, t - start);
}

/* The "loaded" report is only created (O_EXCL: another process that loaded
 * the shim, e.g. `qemu --version`, may have written it first); the final one
 * is written only by a process that created a vCPU, and replaces it. */
static void write_report(int loaded_only)
{
    int flags = O_WRONLY | O_CREAT | (loaded_only ? O_EXCL : O_TRUNC);
    FILE *f;
    int fd;

    if (!report_path || !*report_path)
        return;
    if (!loaded_only && !atomic_load(&n_vcpus))
        return;
    fd = open(report_path, flags, 0644);
    if (fd < 0)
        return;
    f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return;
    }
    fprintf(f, "{\"shim\":\"kvm_delay\",\"loaded\":true,\"final\":%s,"
            "\"pid\":%ld,\"delay_ns\":%ld,\"vcpus\":%lu,"
            "\"kvm_run_returns\":%lu,\"delayed_io\":%lu,"
            "\"delayed_mmio\":%lu,\"other_exits\":%lu,\"interrupted\":%lu,"
            "\"unmapped\":%lu,\"spun_ns\":%lu}\n",
            loaded_only ? "false" : "true", (long)getpid(), delay_ns,
            atomic_load(&n_vcpus), atomic_load(&n_runs), atomic_load(&n_io),
            atomic_load(&n_mmio), atomic_load(&n_other), atomic_load(&n_intr),
            atomic_load(&n_unmapped), atomic_load(&spun_ns));
    fclose(f);
}

static void report_at_exit(void)
{
    write_report(0);
}

__attribute__((constructor)) static void shim_init(void)
{
    const char *text = getenv("TRAPMETER_DELAY_NS");
    char *end = NULL;

    real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
    real_mmap = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
    real_mmap64 = (mmap64_fn)dlsym(RTLD_NEXT, "mmap64");
    if (text && *text) {
        errno = 0;
        delay_ns = strtol(text, &end, 10);
        if (errno || *end || delay_ns < 0 || delay_ns > MAX_DELAY_NS) {
            fprintf(stderr, "kvm_delay: TRAPMETER_DELAY_NS=%s: expected "
                    "0..%ld nanoseconds\n", text, MAX_DELAY_NS);
            _exit(2);
        }
    }
    report_path = getenv("TRAPMETER_DELAY_REPORT");
    write_report(1);
    atexit(report_at_exit);
}

/* One KVM_RUN return: delay it when QEMU is about to handle I/O or MMIO. */
static void after_run(int fd, int ret)
{
    struct kvm_run *run;

    atomic_fetch_add(&n_runs, 1);
    if (ret != 0) {
        atomic_fetch_add(&n_intr, 1);
        return;
    }
    run = atomic_load(&vcpu_run[fd]);
    if (!run) {
        atomic_fetch_add(&n_unmapped, 1);
        return;
    }
    if (run->exit_reason == KVM_EXIT_IO) {
        atomic_fetch_add(&n_io, 1);
    } else if (run->exit_reason == KVM_EXIT_MMIO) {
        atomic_fetch_add(&n_mmio, 1);
    } else {
        atomic_fetch_add(&n_other, 1);
        return;
    }
    if (delay_ns > 0)
        spin(delay_ns);
}

int ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    void *arg;
    int ret;

    va_start(ap, request);
    arg = va_arg(ap, void *);
    va_end(ap);
    if (!real_ioctl)
        real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
    ret = real_ioctl(fd, request, arg);
    if (request == KVM_CREATE_VCPU && ret >= 0 && ret < MAX_FDS) {
        atomic_store(&vcpu_run[ret], NULL);
        atomic_store(&vcpu_fd[ret], 1);
        atomic_fetch_add(&n_vcpus, 1);
    } else if (request == KVM_RUN && fd >= 0 && fd < MAX_FDS &&
               atomic_load(&vcpu_fd[fd])) {
        int saved = errno;

        after_run(fd, ret);
        errno = saved;
    }
    return ret;
}

static void note_mapping(void *p, int fd, off_t off)
{
    if (p != MAP_FAILED && fd >= 0 && fd < MAX_FDS && off == 0 &&
        atomic_load(&vcpu_fd[fd]))
        atomic_store(&vcpu_run[fd], (struct kvm_run *)p);
}

/* QEMU maps each vCPU fd at offset 0: that is its struct kvm_run.  Debian's
 * QEMU calls mmap64 (the same call on x86-64); both are wrapped. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p;

    if (!real_mmap)
        real_mmap = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
    p = real_mmap(addr, len, prot, flags, fd, off);
    note_mapping(p, fd, off);
    return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    void *p;

    if (!real_mmap64)
        real_mmap64 = (mmap64_fn)dlsym(RTLD_NEXT, "mmap64");
    p = real_mmap64(addr, len, prot, flags, fd, off);
    note_mapping(p, fd, (off_t)off);
    return p;
}
