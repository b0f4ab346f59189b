/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit tests (TAP) of the ns-3 model's stamping and reflection: the same
 * checks bpf/hpcc_switch.bpf.c and bpf/hpcc_host.bpf.c are held to, on
 * HpccNet's packet code and hpcc_stamp.h.
 */
#include "hpcc-model.h"

#include <cstring>

extern "C" {
#include "tap.h"
}

using namespace ns3;

static Ptr<Packet>
MakeProbe(uint8_t nhops, uint8_t flags, uint32_t nonce, uint32_t len = HPCC_PROBE_LEN)
{
    struct hpcc_probe p;
    std::vector<uint8_t> buf(len, 0);
    TcpHeader th;

    std::memset(&p, 0, sizeof(p));
    p.hdr.version = HPCC_WIRE_VERSION;
    p.hdr.room = HPCC_MAX_HOPS;
    p.hdr.nhops = nhops;
    p.hdr.flags = flags;
    hpcc_put_be32(&p.hdr.nonce, nonce);
    std::memcpy(buf.data(), &p, std::min<uint32_t>(len, sizeof(p)));
    Ptr<Packet> pkt = Create<Packet>(buf.data(), len);
    th.SetSourcePort(40000);
    th.SetDestinationPort(5004);
    th.SetSequenceNumber(SequenceNumber32(12345));
    th.SetFlags(0);
    pkt->AddHeader(th);
    return pkt;
}

static struct hpcc_probe
Payload(Ptr<const Packet> p, TcpHeader* th)
{
    struct hpcc_probe probe;
    std::vector<uint8_t> buf(p->GetSize());

    p->PeekHeader(*th);
    p->CopyData(buf.data(), buf.size());
    std::memcpy(&probe, buf.data() + th->GetSerializedSize(), sizeof(probe));
    return probe;
}

int
main()
{
    const uint8_t pd = HPCC_DSCP_PROBE_DEFAULT, rd = HPCC_DSCP_RESPONSE_DEFAULT;
    struct hpcc_stamp_in in = {7, 3, 100, 4500, 0x0102030405060708ULL, 0x1122334455667788ULL};
    struct hpcc_probe probe;
    struct hpcc_sample L[HPCC_MAX_HOPS];
    TcpHeader th;
    Ipv4Header ip;

    /* classification, as hpcc_classify() */
    tap_ok(HpccNet::Classify(MakeProbe(0, 0, 5), pd, pd, rd, &th, &probe) == HpccNet::PROBE,
           "a probe with the probe DSCP is a probe");
    tap_ok(HpccNet::Classify(MakeProbe(0, 0, 5), 0, pd, rd, &th, &probe) == HpccNet::OTHER,
           "another DSCP is ordinary traffic");
    tap_ok(HpccNet::Classify(MakeProbe(0, HPCC_F_RESPONSE, 5), rd, pd, rd, &th, &probe) ==
               HpccNet::RESPONSE,
           "a response with the response DSCP is a response");
    tap_ok(HpccNet::Classify(MakeProbe(0, HPCC_F_RESPONSE, 5), pd, pd, rd, &th, &probe) ==
               HpccNet::MALFORMED,
           "a response with the probe DSCP is malformed (bad_dscp)");
    tap_ok(HpccNet::Classify(MakeProbe(0, 0, 5, 100), pd, pd, rd, &th, &probe) ==
               HpccNet::MALFORMED,
           "a truncated payload is malformed");
    tap_ok(HpccNet::Classify(MakeProbe(9, 0, 5), pd, pd, rd, &th, &probe) == HpccNet::MALFORMED,
           "nhops above room is malformed");
    {
        Ptr<Packet> p = MakeProbe(0, 0, 5);
        TcpHeader t;
        p->RemoveHeader(t);
        t.SetFlags(TcpHeader::ACK);
        p->AddHeader(t);
        tap_ok(HpccNet::Classify(p, pd, pd, rd, &th, &probe) == HpccNet::OTHER,
               "a segment with ACK set is never a candidate");
    }

    /* stamping: one hop, big-endian, nhops + 1, same size */
    {
        Ptr<Packet> p = MakeProbe(0, 0, 5);
        uint32_t size = p->GetSize();
        ip.SetTos(pd << 2);
        Ptr<Ipv4QueueDiscItem> item = Create<Ipv4QueueDiscItem>(p, Address(), 0x800, ip);
        tap_ok(HpccNet::Stamp(item, in) == HPCC_STAMP_HOP, "a probe with room is stamped");
        probe = Payload(item->GetPacket(), &th);
        tap_ok(probe.hdr.nhops == 1 && probe.hdr.flags == 0, "nhops 0 -> 1, flags unchanged");
        tap_ok(item->GetPacket()->GetSize() == size, "the probe keeps its size");
        tap_ok(th.GetSourcePort() == 40000 && th.GetFlags() == 0, "the TCP header is kept");
        const uint8_t* b = reinterpret_cast<const uint8_t*>(&probe.hop[0]);
        tap_ok(b[3] == 7 && b[7] == 3 && b[11] == 100 && b[14] == 0x11 && b[15] == 0x94 &&
                   b[16] == 1 && b[23] == 8 && b[24] == 0x11 && b[31] == 0x88,
               "hop 0 is big-endian switch, port, rate, qlen, ts, tx_bytes");
        tap_ok(hpcc_ctl_decode(&probe, L) == 1 && L[0].switch_id == 7 && L[0].port_id == 3 &&
                   L[0].rate_mbps == 100 && L[0].qlen == 4500 && L[0].ts_ns == in.ts_ns &&
                   L[0].tx_bytes == in.tx_bytes,
               "the controller decodes what the switch stamped");
        in.switch_id = 8;
        HpccNet::Stamp(item, in);
        probe = Payload(item->GetPacket(), &th);
        tap_ok(probe.hdr.nhops == 2 && hpcc_ctl_decode(&probe, L) == 2 && L[0].switch_id == 7 &&
                   L[1].switch_id == 8,
               "the next hop fills the next record");
    }
    {
        Ptr<Packet> p = MakeProbe(HPCC_MAX_HOPS, 0, 5);
        Ptr<Ipv4QueueDiscItem> item = Create<Ipv4QueueDiscItem>(p, Address(), 0x800, ip);
        tap_ok(HpccNet::Stamp(item, in) == HPCC_STAMP_OVERFLOW, "a full probe overflows");
        probe = Payload(item->GetPacket(), &th);
        tap_ok(probe.hdr.nhops == HPCC_MAX_HOPS && probe.hdr.flags == HPCC_F_OVERFLOW,
               "overflow sets HPCC_F_OVERFLOW, nhops unchanged");
        tap_ok(HpccNet::Stamp(item, in) == HPCC_STAMP_NOTHING,
               "an overflowed probe is left alone");
    }
    tap_ok(hpcc_stamp_port_id(HPCC_PORT_F_PORT_ID, 9, 4) == 9 &&
               hpcc_stamp_port_id(0, 9, 4) == 4,
           "port id: configured, else the ifindex");

    /* reflection: addresses and ports swapped, RESPONSE, DSCP, TTL */
    {
        Ptr<Packet> p = MakeProbe(2, 0, 77);
        Ipv4Header rip;
        ip.SetSource(Ipv4Address("10.0.1.1"));
        ip.SetDestination(Ipv4Address("10.2.1.1"));
        ip.SetTos((pd << 2) | 1);
        ip.SetTtl(60);
        Ptr<Packet> r = HpccNet::Reflect(ip, p, rd, &rip);
        probe = Payload(r, &th);
        tap_ok(rip.GetSource() == Ipv4Address("10.2.1.1") &&
                   rip.GetDestination() == Ipv4Address("10.0.1.1"),
               "addresses swapped");
        tap_ok(th.GetSourcePort() == 5004 && th.GetDestinationPort() == 40000 &&
                   th.GetSequenceNumber() == SequenceNumber32(12345),
               "ports swapped, sequence kept");
        tap_ok(rip.GetTos() == ((rd << 2) | 1) && rip.GetTtl() == HPCC_RESP_TTL,
               "response DSCP (ECN bits kept), fresh TTL");
        tap_ok(probe.hdr.flags == HPCC_F_RESPONSE && probe.hdr.nhops == 2 &&
                   hpcc_get_be32(&probe.hdr.nonce) == 77,
               "RESPONSE set; hops and nonce travel back");
        tap_ok(HpccNet::Classify(r, rip.GetTos() >> 2, pd, rd, &th, &probe) == HpccNet::RESPONSE,
               "the reflected packet classifies as a response");
        tap_ok(hpcc_ctl_check_response(&probe, HPCC_PROBE_LEN) == 0,
               "the controller accepts it structurally");
    }

    /* delivery to the flow: the nonce decides */
    {
        Ptr<TcpHpcc> cc = CreateObject<TcpHpcc>();
        Ptr<Packet> r = MakeProbe(1, HPCC_F_RESPONSE, 99);
        probe = Payload(r, &th);
        tap_ok(cc->Report(&probe, HPCC_PROBE_LEN) == -ESTALE,
               "a response without an outstanding probe is stale");
        probe.hdr.flags = 0;
        tap_ok(cc->Report(&probe, HPCC_PROBE_LEN) == -EBADMSG, "a probe is no report");
        probe.hdr.flags = HPCC_F_RESPONSE | HPCC_F_OVERFLOW;
        tap_ok(cc->Report(&probe, HPCC_PROBE_LEN) == -E2BIG, "an overflowed report is refused");
    }
    return tap_done();
}
