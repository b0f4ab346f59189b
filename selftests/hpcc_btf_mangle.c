// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_btf_mangle IN OUT: copy the module IN to OUT with a .BTF section the
 * kernel will not validate (its magic byte-swapped), as it does not validate
 * module BTF made for another build of itself. Kernels with
 * CONFIG_MODULE_ALLOW_BTF_MISMATCH (Debian's) then load the module without
 * BTF; the others refuse it. Exit 0, or 1 with a message.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const char *file)
{
	fprintf(stderr, "hpcc_btf_mangle: %s: %s\n", file, what);
	return 1;
}

int main(int argc, char **argv)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	unsigned char *buf;
	const char *names;
	long size;
	FILE *f;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: hpcc_btf_mangle IN.ko OUT.ko\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f)
		return fail("cannot open", argv[1]);
	size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (size < (long)sizeof(*eh) || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return fail("cannot size", argv[1]);
	}
	buf = malloc(size);
	if (!buf || fread(buf, 1, size, f) != (size_t)size) {
		fclose(f);
		return fail("cannot read", argv[1]);
	}
	fclose(f);

	eh = (const Elf64_Ehdr *)buf;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || !eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff + (unsigned long)eh->e_shnum * sizeof(*sh) > (unsigned long)size)
		return fail("not a little-endian ELF64 file", argv[1]);
	sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset >= (unsigned long)size)
		return fail("bad section name table", argv[1]);
	names = (const char *)buf + sh[eh->e_shstrndx].sh_offset;
	for (i = 0; i < eh->e_shnum; i++) {
		unsigned char *btf = buf + sh[i].sh_offset;

		if (sh[i].sh_name >= sh[eh->e_shstrndx].sh_size ||
		    strcmp(names + sh[i].sh_name, ".BTF"))
			continue;
		/* struct btf_header: __u16 magic 0xeB9F, little-endian */
		if (sh[i].sh_size < 24 || sh[i].sh_offset + 24 > (unsigned long)size ||
		    btf[0] != 0x9f || btf[1] != 0xeb)
			return fail(".BTF has no BTF header", argv[1]);
		btf[0] = 0xeb;
		btf[1] = 0x9f;
		f = fopen(argv[2], "wb");
		if (!f || fwrite(buf, 1, size, f) != (size_t)size || fclose(f))
			return fail("cannot write", argv[2]);
		free(buf);
		return 0;
	}
	return fail("no .BTF section", argv[1]);
}
