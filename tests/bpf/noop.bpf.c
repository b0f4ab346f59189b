// SPDX-License-Identifier: GPL-2.0
/* noop.bpf.c - a tc program that does nothing: the baseline for
 * `tests/bpf/bpf_test --bench`.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tc")
int hpcc_noop(struct __sk_buff *skb)
{
	return 0;	/* TC_ACT_OK */
}
