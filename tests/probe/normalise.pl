#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
# Normalise hpcc-probe's output for the golden tests (test_golden.sh):
# what changes from run to run (netns cookies, program ids, ifindexes,
# times, counters, queue snapshots, the nonce) becomes a fixed token. A
# number inside a fixed-width column becomes "N" right-aligned in the
# same width, so the layout is still compared.
#
#   normalise.pl [lines|blocks|json] <in >out
#     lines:  sort the lines (output whose order is a hash map's)
#     blocks: sort status's host/switch blocks and a switch's port blocks
#             (readdir and hash map order)
#     json:   status --json: each line one JSON object, printed again
#             indented with sorted keys, its arrays of hosts, switches and
#             ports sorted; what changes becomes "N" (a number only: a
#             string there stays itself, so the golden file still tells
#             numbers from strings); a line starting with "{" that does
#             not parse is printed as "INVALID JSON: " and the parser's
#             message, other lines (stderr) as they are
use strict;
use warnings;

my $sort = shift // '';

# " 12345" -> "     N": the same width.
sub w {
	my ($s) = @_;
	return $s if $s !~ /\d/;
	return sprintf('%*s', length($s), 'N');
}

# Network namespace cookies: "COOKIE NAME" lines in $HPCC_GOLDEN_COOKIES
# give a namespace's pin directory its name, netns/<NAME>.
my %ns;
if (open(my $f, '<', $ENV{HPCC_GOLDEN_COOKIES} // '/nonexistent')) {
	while (<$f>) {
		$ns{$1} = "<$2>" if /^(\d+) (\S+)$/;
	}
	close $f;
}
sub cookie {
	my ($c) = @_;
	return $ns{$c} // 'COOKIE';
}

# status --json: the volatile numbers, by key, anywhere in the object.
my %jvol = map { $_ => 1 } qw(prog_id ifindex cookie age_ns backlog_bytes
	sent_bytes);
sub jnorm {
	my ($v, $key, $parent) = @_;
	if (ref $v eq 'HASH') {
		for my $k (keys %$v) {
			$v->{$k} = jnorm($v->{$k}, $k, $key);
		}
		return $v;
	}
	if (ref $v eq 'ARRAY') {
		my $js = JSON::PP->new->canonical;
		$_ = jnorm($_, '', $key) for @$v;
		return [sort { $js->encode($a) cmp $js->encode($b) } @$v]
			if $key =~ /^(?:hosts|switches|ports)$/;
		return $v;
	}
	return $v if !defined $v || ref $v;
	my $num = JSON::PP->new->allow_nonref->encode($v) !~ /^"/;
	return 'N' if $num && ($jvol{$key} || $parent eq 'counters');
	if (!$num) {
		$v =~ s{(/sys/fs/bpf/tcp_hpcc/netns/)(\d+)}{$1 . cookie($2)}ge;
	}
	return $v;
}
if ($sort eq 'json') {
	require JSON::PP;
	my $js = JSON::PP->new->canonical->pretty->indent_length(1);
	while (my $l = <STDIN>) {
		if ($l !~ /^\{/) {	# stderr: messages
			$l =~ s{^\S*/hpcc-probe: }{hpcc-probe: };
			print $l;
			next;
		}
		my $o = eval { JSON::PP->new->decode($l) };
		if (!defined $o) {
			(my $e = $@) =~ s/ at \S+ line \d+\.\n//;
			print "INVALID JSON: $e\n";
			next;
		}
		print $js->encode(jnorm($o, '', ''));
	}
	exit 0;
}

my $counters = 0;
my @out;
while (my $l = <STDIN>) {
	chomp $l;
	# getopt's messages start with the program's path
	$l =~ s{^\S*/hpcc-probe: }{hpcc-probe: };
	$l =~ s{(/sys/fs/bpf/tcp_hpcc/netns/)(\d+)}{$1 . cookie($2)}ge;
	$l =~ s/netns cookie (\d+)/'netns cookie ' . cookie($1)/ge;
	$l =~ s/prog id \d+/prog id N/g;
	$l =~ s/\(ifindex \d+\)/(ifindex N)/g;

	# status: counters (two columns, each "%-20s %12llu")
	if ($l =~ /^  counters:$/) {
		$counters = 1;
	} elsif ($counters && $l =~ /^    \S/) {
		$l =~ s/(?<=\S)( +\d+)(?= |$)/w($1)/ge;
	} else {
		$counters = 0;
	}
	# status: a port's queue snapshot
	if ($l =~ /^    queue snapshot: backlog/) {
		$l =~ s/backlog \d+ B/backlog N B/;
		$l =~ s/sent \d+ B/sent N B/;
		$l =~ s/ \([\d.]+ [KMGT]iB\)/ (N XiB)/;
		$l =~ s/, -?[\d.]+ (?:ns|us|ms|s) old/, T old/;
	}

	# trace, table
	$l =~ s/nonce 0x[0-9a-f]{8}/nonce 0xNNNNNNNN/;
	$l =~ s/ after [\d.]+ (?:ns|us|ms|s): / after T: /;
	if ($l =~ /^(\d+ +\d+ +\d+ +\S+ \S+)( +\d+)( +\d+)( +\S+(?: \S+)?)$/) {
		$l = $1 . w($2) . w($3) . w($4);
	}
	# trace --json
	$l =~ s/"(rtt_ns|nonce|qlen|tx_bytes|ts_ns|delta_ns)":-?\d+/"$1":N/g;

	push @out, $l;
}

if ($sort eq 'lines') {
	@out = sort @out;
} elsif ($sort eq 'blocks') {
	# Top-level blocks: a line at column 0 and the indented ones after it.
	my @blocks;
	for my $l (@out) {
		if ($l =~ /^\S/ || !@blocks) {
			push @blocks, [$l];
		} else {
			push @{$blocks[-1]}, $l;
		}
	}
	# Inside a switch block: its "  port" sub-blocks, sorted.
	for my $blk (@blocks) {
		next if $blk->[0] !~ /^switch \[/;
		my ($head, @ports, @tail) = ($blk->[0]);
		for my $l (@{$blk}[1 .. $#$blk]) {
			if (!@tail && $l =~ /^  port /) {
				push @ports, [$l];
			} elsif (!@tail && @ports && $l =~ /^    /) {
				push @{$ports[-1]}, $l;
			} else {
				push @tail, $l;
			}
		}
		@ports = sort { join("\n", @$a) cmp join("\n", @$b) } @ports;
		$blk = [$head, (map { @$_ } @ports), @tail];
	}
	# Runs of host/switch blocks, sorted; the rest stays in place.
	my (@sorted, @run);
	my $flush = sub {
		push @sorted, sort { join("\n", @$a) cmp join("\n", @$b) } @run;
		@run = ();
	};
	for my $blk (@blocks) {
		if ($blk->[0] =~ /^(?:host |switch \[)/) {
			push @run, $blk;
		} else {
			$flush->();
			push @sorted, $blk;
		}
	}
	$flush->();
	@out = map { @$_ } @sorted;
}

print "$_\n" for @out;
