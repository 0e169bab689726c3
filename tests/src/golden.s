@ A fixed ARM program for the exact-output tests (tests/run-golden.sh):
@ functions of chosen sizes, each in its own section, so that the layout
@ depends on no compiler.  Linked with golden.lds (a fixed address),
@ the default order puts the hot functions route, lookup, hash and parse
@ at the same offset of a 512-byte way span (1K:2:32: 16 sets of 2 ways).

	.syntax unified
	.arm

@ NAME SIZE: a function of SIZE bytes (a multiple of 4) that returns
	.macro	func name, size
	.section .text.\name, "ax", %progbits
	.p2align 2
	.globl	\name
	.type	\name, %function
\name:
	.rept	(\size - 4) / 4
	nop
	.endr
	bx	lr
	.size	\name, . - \name
	.endm

@ as func, but calls CALLEE first (a static call edge)
	.macro	caller name, size, callee
	.section .text.\name, "ax", %progbits
	.p2align 2
	.globl	\name
	.type	\name, %function
\name:
	push	{r4, lr}
	bl	\callee
	.rept	(\size - 12) / 4
	nop
	.endr
	pop	{r4, pc}
	.size	\name, . - \name
	.endm

	.text
	.globl	_start
	.type	_start, %function
_start:
	bl	route
	bl	parse
	bl	queue
	b	_start
	.size	_start, . - _start

	caller	route, 128, lookup	@ 0x010: sets 0-4
	func	init, 368
	caller	lookup, 96, hash	@ 0x200: sets 0-2
	func	setup, 416
	func	hash, 64		@ 0x400: sets 0-1
	func	dump, 448
	caller	parse, 160, csum	@ 0x600: sets 0-4
	func	csum, 32
	func	queue, 48
	func	cleanup, 200
	func	log_msg, 40
