/* boot.S -- the kernel's entry from a multiboot loader (QEMU's -kernel):
 * from 32-bit protected mode without paging into 64-bit long mode, with
 * the first GiB identity-mapped in 2 MiB pages, SSE enabled (the compiler
 * uses it) and a 16 KiB stack, then kmain(multiboot_info).
 *
 * The file is assembled for x86-64; the code before the far jump runs in
 * 32-bit mode, so it is written with .code32. */
#define MULTIBOOT_MAGIC 0x1BADB002
#define MULTIBOOT_FLAGS 0x00000000

#define CR0_PE (1 << 0)
#define CR0_MP (1 << 1)
#define CR0_EM (1 << 2)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define CR4_OSFXSR (1 << 9)
#define CR4_OSXMMEXCPT (1 << 10)
#define MSR_EFER 0xC0000080
#define EFER_LME (1 << 8)
#define PAGE_PRESENT_WRITABLE 0x3
#define PAGE_HUGE 0x80

        .section .multiboot, "a"
        .align 4
        .long MULTIBOOT_MAGIC, MULTIBOOT_FLAGS, -(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)

        .section .bss
        .align 4096
pml4:   .skip 4096
pdpt:   .skip 4096
pd:     .skip 4096
stack:  .skip 16384
stack_top:

        .text
        .code32
        .globl _start
_start:
        cli
        mov $stack_top, %esp
        mov %ebx, %esi                  /* the multiboot information */

        mov $pdpt + PAGE_PRESENT_WRITABLE, %eax
        mov %eax, pml4
        mov $pd + PAGE_PRESENT_WRITABLE, %eax
        mov %eax, pdpt
        xor %ecx, %ecx
map_2mib:
        mov %ecx, %eax
        shl $21, %eax
        or $PAGE_PRESENT_WRITABLE + PAGE_HUGE, %eax
        mov %eax, pd(, %ecx, 8)
        inc %ecx
        cmp $512, %ecx
        jne map_2mib
        mov $pml4, %eax
        mov %eax, %cr3

        mov %cr4, %eax
        or $CR4_PAE + CR4_OSFXSR + CR4_OSXMMEXCPT, %eax
        mov %eax, %cr4
        mov $MSR_EFER, %ecx
        rdmsr
        or $EFER_LME, %eax
        wrmsr
        mov %cr0, %eax
        and $~CR0_EM, %eax
        or $CR0_PG + CR0_MP + CR0_PE, %eax
        mov %eax, %cr0

        lgdt gdt_pointer
        ljmp $8, $long_mode

        .code64
long_mode:
        mov $16, %ax
        mov %ax, %ds
        mov %ax, %es
        mov %ax, %ss
        mov $stack_top, %rsp
        mov %esi, %edi                  /* zero-extended: kmain's argument */
        call kmain
halt:
        cli
        hlt
        jmp halt

        .section .rodata
        .align 8
gdt:
        .quad 0
        .quad 0x00AF9A000000FFFF        /* 64-bit code, ring 0 */
        .quad 0x00CF92000000FFFF        /* data, ring 0 */
gdt_end:
gdt_pointer:
        .word gdt_end - gdt - 1
        .long gdt

        .section .note.GNU-stack, "", @progbits
