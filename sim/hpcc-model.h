/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ns-3 model of tcp_hpcc: the module's controller (hpcc_ctl.h, the very
 * C code tcp_hpcc.c runs) behind ns-3's TcpCongestionOps, and the network
 * side of the probe/response loop as the tc programs in bpf/ do it.
 *
 *   TcpHpcc   tcp_hpcc.c's cong_control/ssthresh/set_state: consumes a
 *             stashed report on the next ACK, runs the law or the Reno
 *             fallback, sends the flow's probe when hpcc_ctl.h says so.
 *   HpccNet   a TrafficControlLayer, the node's clsact: at egress (before
 *             the root qdisc's enqueue) a configured port stamps probes
 *             (hpcc_switch.bpf.c, via hpcc_stamp.h); at ingress a host
 *             reflects probes and hands responses to the flow's TcpHpcc
 *             (hpcc_host.bpf.c and the module's kfunc).
 */
#ifndef HPCC_MODEL_H
#define HPCC_MODEL_H

#include <cstdint>
#include <map>
#include <tuple>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

extern "C" {
#include "hpcc_ctl.h"
#include "hpcc_flowcount.h"
#include "hpcc_stamp.h"
}

namespace ns3
{

class HpccNet;

/* Counters, as /proc/net/tcp_hpcc_stat and the BPF maps name them. */
struct HpccCounters
{
    uint64_t probesSent = 0, probesLost = 0, reportsAccepted = 0, reportsUsed = 0;
    uint64_t reportsNoCapacity = 0, rejected = 0, telemetryTimeouts = 0;
    uint64_t stamped = 0, overflow = 0, reflected = 0, delivered = 0, noFlow = 0;
    uint64_t competeEntered = 0, reportsShared = 0, handoffsGiven = 0, handoffsTaken = 0;
};

HpccCounters& HpccStats();

/* The module's parameters (tcp_hpcc's defaults). */
struct hpcc_ctl_params HpccDefaultParams();
/* Sets a module parameter for every TcpHpcc created after; false: unknown. */
bool HpccSetParam(const std::string& name, uint32_t v);

class TcpHpcc : public TcpLinuxReno
{
  public:
    static TypeId GetTypeId();
    TcpHpcc();
    TcpHpcc(const TcpHpcc& o);
    ~TcpHpcc() override;

    std::string GetName() const override { return "TcpHpcc"; }
    Ptr<TcpCongestionOps> Fork() override { return CopyObject<TcpHpcc>(this); }

    bool HasCongControl() const override { return true; }
    void Init(Ptr<TcpSocketState> tcb) override;
    /* ns-3 calls this even with CongControl; Linux does not call
     * cong_avoid then: CongControl() does all of it.
     */
    void IncreaseWindow(Ptr<TcpSocketState>, uint32_t) override {}
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev) override;

    /* The flow this controller belongs to: its node's HpccNet sends the
     * probes and finds this flow for a response. Sender side only; an
     * unattached TcpHpcc (a server's accepted socket) runs Reno.
     */
    void Attach(Ptr<HpccNet> net, Ipv4Address local, uint16_t lport,
                Ipv4Address remote, uint16_t rport);
    void Detach();

    /* bpf_hpcc_report(): validate, match the nonce, stash for the next ACK.
     * 0 or the kfunc's negative errno.
     */
    int Report(const struct hpcc_probe* p, uint32_t len, uint32_t flows = 0);
    /* hpcc_handoff_give(): the flow's sending is done (the simulation's
     * flows end when their data is answered), its W to its peer's pool
     */
    void HandoffGive();

    const struct hpcc_ctl& Ctl() const { return m_ctl; }
    Ipv4Address Local() const { return m_local; }
    uint16_t LocalPort() const { return m_lport; }
    struct hpcc_ctl_params m_params;

  private:
    void Reno(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateSample& rs);
    void Fallback(Ptr<TcpSocketState> tcb);
    bool ConsumeReport(Ptr<TcpSocketState> tcb, uint64_t now);
    void ShareReport(Ptr<TcpSocketState> tcb, uint64_t now);
    void MaybeProbe(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateSample& rs, uint64_t now);
    void SendProbe(Ptr<TcpSocketState> tcb, uint64_t now);
    void HandoffTake(uint64_t now);
    uint64_t SrttNs() const;
    void View(Ptr<TcpSocketState> tcb, struct hpcc_tcp_view* v) const;

    struct hpcc_ctl m_ctl;
    /* the mailbox */
    bool m_pending = false;
    uint32_t m_nhops = 0, m_seq = 0, m_probeNonce = 0, m_probeSeq = 0;
    uint32_t m_flows = 0;       /* the receiver's N with the report */
    struct hpcc_sample m_report[HPCC_MAX_HOPS];
    uint64_t m_srttNs = 0;      /* Linux's srtt: EWMA 1/8 of the RTT samples */
    uint32_t m_priorCwnd = 0;
    uint64_t m_lastDelivered = 0; /* rc.m_delivered at the last ACK */
    uint32_t m_deliveredCe = 0;   /* bytes delivered by ACKs with ECE */
    bool m_handed = false;        /* handoff: W given */
    Ptr<HpccNet> m_net;
    Ipv4Address m_local, m_remote;
    uint16_t m_lport = 0, m_rport = 0;
    Ptr<UniformRandomVariable> m_rng;
};

/* One stamping port: hpcc-probe switch attach DEV --rate R --switch-id S. */
struct HpccPortCfg
{
    uint32_t switchId = 0;
    uint32_t portId = 0;
    uint16_t flags = 0; /* HPCC_PORT_F_PORT_ID: portId, else the ifindex */
    uint32_t rateMbps = 0;
};

/* A forging receiver (threat model): the responses to probes from
 * g_hpcc_forge_src are rewritten before they go back, every hop claiming
 * an idle 4 Pbit/s link (1) or a 4 GB queue (2); 0: none.
 */
extern int g_hpcc_forge;
extern int g_hpcc_ecn;		/* the module's ecn: negotiate, echo per packet */
extern int g_hpcc_no_bounds;	/* 1: max_capacity, max_growth, loss_beta 0 */
extern Ipv4Address g_hpcc_forge_src;

/* --law_trace: called after every report a flow used, its own or its
 * path's (demo/lawsample's rows); nullptr: none.
 */
using HpccLawTraceFn = void (*)(const TcpHpcc& f);
extern HpccLawTraceFn g_hpcc_law_trace;

class HpccNet : public TrafficControlLayer
{
  public:
    static TypeId GetTypeId();
    HpccNet() = default;

    /* clsact egress: stamp, then the root qdisc as usual */
    void Send(Ptr<NetDevice> device, Ptr<QueueDiscItem> item) override;
    /* clsact ingress: reflect or deliver, else up the stack */
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> p,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType packetType) override;

    void AttachSwitch(Ptr<NetDevice> dev, const HpccPortCfg& cfg) { m_ports[dev] = cfg; }
    void AttachHost() { m_host = true; }

    using FlowKey = std::tuple<uint32_t, uint16_t, uint32_t, uint16_t>;
    void AddFlow(const FlowKey& k, TcpHpcc* f) { m_flows[k] = f; }
    void DelFlow(const FlowKey& k) { m_flows.erase(k); }
    /* A probe of the flow, sent like the module's __ip_queue_xmit. */
    void SendProbe(Ptr<Packet> tcpPayloadAndHeader, Ipv4Address src, Ipv4Address dst,
                   uint8_t ecn = 0);

    /* first_crowd: the latest flow start on this host (tcp_hpcc.c's
     * hpcc_net.last_start_ns), ns; 0: none
     */
    uint64_t m_lastStart = 0;
    /* path_share: the latest report used, per peer (tcp_hpcc.c's
     * hpcc_net.paths)
     */
    std::map<uint32_t, struct hpcc_path_report> m_paths;
    /* handoff: the pool of finished flows' W, per peer (in tcp_hpcc.c
     * the path_share slot's)
     */
    std::map<uint32_t, struct hpcc_handoff_pool> m_pools;

    uint8_t m_probeDscp = HPCC_DSCP_PROBE_DEFAULT;
    uint8_t m_respDscp = HPCC_DSCP_RESPONSE_DEFAULT;

    /* The pieces, public for the unit tests. */
    enum Kind
    {
        OTHER,
        PROBE,
        RESPONSE,
        MALFORMED
    };
    /* p starts at the TCP header; the IP header's DSCP is given. */
    static Kind Classify(Ptr<const Packet> p, uint8_t dscp, uint8_t probeDscp,
                         uint8_t respDscp, TcpHeader* th, struct hpcc_probe* probe);
    /* Stamp the probe in item (TCP header at the front) with the port's
     * snapshot; returns what hpcc_stamp_probe() did.
     */
    static enum hpcc_stamp_action Stamp(Ptr<Ipv4QueueDiscItem> item,
                                        const struct hpcc_stamp_in& in);
    /* The response to a probe that arrived as ip + p (p from the TCP
     * header on); returns the packet from the TCP header on and sets rip.
     */
    static Ptr<Packet> Reflect(const Ipv4Header& ip, Ptr<const Packet> p,
                               uint8_t respDscp, Ipv4Header* rip);

  private:
    std::map<Ptr<NetDevice>, HpccPortCfg> m_ports;
    std::map<FlowKey, TcpHpcc*> m_flows;
    bool m_host = false;
    /* receiver-measured N (hpcc_flowcount.h), as hpcc_host counts it */
    struct hpcc_flowcount m_fc = {};
};

/* The receiver's N with a response: the model speaks wire version 1,
 * which has no field for it (version 2's hpcc_hdr_v2.flows), so it rides
 * beside the packet.
 */
class HpccFlowsTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override { return GetTypeId(); }
    uint32_t GetSerializedSize() const override { return 4; }
    void Serialize(TagBuffer b) const override { b.WriteU32(n); }
    void Deserialize(TagBuffer b) override { n = b.ReadU32(); }
    void Print(std::ostream& os) const override { os << "flows=" << n; }
    uint32_t n = 0;
};

/* InternetStackHelper's IPv4 part, with HpccNet as the traffic control
 * layer (the helper hard-codes the base class).
 */
Ptr<HpccNet> HpccInstallStack(Ptr<Node> node);

} // namespace ns3

#endif
