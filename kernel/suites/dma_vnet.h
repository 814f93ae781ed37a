/*
 * kernel/suites/dma_vnet.h - suite dma's virtio-net cases: the device
 * reading a transmit frame (vnet.tx.*) and, through a QEMU hub, writing
 * it into a receive buffer of a second NIC (vnet.txrx.*), one buffer
 * inside a page against a descriptor chain whose buffer crosses one
 * (.chain), in every IOMMU mode (kernel/suites/dma_vtd.h).  Only suite
 * dma uses it (kernel/suites/dma.c calls these in this order).
 */
#ifndef KERNEL_SUITES_DMA_VNET_H
#define KERNEL_SUITES_DMA_VNET_H

/* Find the NICs, bring them up (translation off) and attach each to the
 * IOMMU; before any mode is entered. */
void dma_vnet_setup(void);
/* Every vnet case in every mode, then the checks dma.vnet.*. */
void dma_vnet_run(void);
/* A transmit frame at an unmapped IOVA in 4 KiB mode: the unit must
 * record the NIC's read fault (check dma.vtd.vnet_fault_unmapped).
 * Leaves that NIC reset; last of the suite. */
void dma_vnet_fault_probe(void);

#endif
