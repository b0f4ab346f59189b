/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ns-3 model of tcp_hpcc (see hpcc-model.h). Every decision is
 * hpcc_ctl.h's / hpcc_law.h's / hpcc_stamp.h's; this file does the I/O
 * that tcp_hpcc.c and the tc programs do in Linux.
 */
#include "hpcc-model.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HpccModel");
NS_OBJECT_ENSURE_REGISTERED(TcpHpcc);
NS_OBJECT_ENSURE_REGISTERED(HpccNet);

HpccCounters&
HpccStats()
{
    static HpccCounters c;
    return c;
}

int g_hpcc_no_bounds;
HpccLawTraceFn g_hpcc_law_trace;
int g_hpcc_ecn = 1;

/* The controller's dynamics parameters (hpcc_ctl.h), by their module
 * parameter names.
 */
#define HPCC_CTL_DYNAMICS_PARAMS(p)                                                            \
    {"start_hold", &p.start_hold}, {"probe_first", &p.probe_first},                            \
        {"probe_cost", &p.probe_cost}, {"probe_free", &p.probe_free},                          \
        {"compete_rtts", &p.compete_rtts},                                                     \
        {"compete_queue", &p.compete_queue}, {"compete_hold", &p.compete_hold},                \
        {"compete_ecn", &p.compete_ecn},                                                       \
        {"first_bound", &p.first_bound}, {"first_share", &p.first_share},                      \
        {"first_crowd", &p.first_crowd}, {"path_share", &p.path_share},

static struct hpcc_ctl_params
ModuleDefaults()
{
    struct hpcc_ctl_params p = {};

    /* tcp_hpcc.c's module parameter defaults */
    p.eta_permille = 950;
    p.max_stage = 1;
    p.ewma_rtts = 4;
    p.w_ai_bytes = 0;
    p.expected_flows = 8;
    p.base_rtt_us = 0;
    p.telemetry_timeout = 8;
    p.max_mbps = 400000;
    p.max_growth = 1000;
    p.loss_beta = 700;
    p.loss_undo = HPCC_DEF_LOSS_UNDO; /* the model never reorders: unused */
    p.deliv_cap = HPCC_DEF_DELIV_CAP;
    p.deliv_ai = HPCC_DEF_DELIV_AI;
    p.deliv_free = HPCC_DEF_DELIV_FREE;
    p.queue_room = HPCC_DEF_QUEUE_ROOM;
    p.cwnd_gain = HPCC_CWND_GAIN;
    p.cwnd_long_kb = HPCC_DEF_CWND_LONG;
    p.handoff = HPCC_DEF_HANDOFF;
    if (g_hpcc_no_bounds) /* the draft's: no capacity cap, growth or delivery hold, loss net */
        p.max_mbps = p.max_growth = p.loss_beta = p.deliv_cap = 0;
    p.start_hold = HPCC_DEF_START_HOLD;
    p.probe_first = HPCC_DEF_PROBE_FIRST;
    p.probe_cost = HPCC_DEF_PROBE_COST;
    p.probe_free = HPCC_DEF_PROBE_FREE;
    p.compete_rtts = HPCC_DEF_COMPETE_RTTS;
    p.compete_queue = HPCC_DEF_COMPETE_QUEUE;
    p.compete_hold = HPCC_DEF_COMPETE_HOLD;
    p.compete_ecn = HPCC_DEF_COMPETE_ECN;
    p.first_bound = HPCC_DEF_FIRST_BOUND;
    p.first_share = HPCC_DEF_FIRST_SHARE;
    p.first_crowd = HPCC_DEF_FIRST_CROWD;
    p.hop_ewma = HPCC_DEF_HOP_EWMA;
    p.rate_ewma = HPCC_DEF_RATE_EWMA;
    p.ai_time = HPCC_DEF_AI_TIME;
    p.law_time = HPCC_DEF_LAW_TIME;
    p.ewma_span = HPCC_DEF_EWMA_SPAN;
    p.qmin_span = HPCC_DEF_QMIN_SPAN;
    p.first_qmin = HPCC_DEF_FIRST_QMIN;
    p.path_share = HPCC_DEF_PATH_SHARE;
    p.fair_pull = HPCC_DEF_FAIR_PULL;
    p.fair_slack = HPCC_DEF_FAIR_SLACK;
    p.fair_floor = HPCC_DEF_FAIR_FLOOR;
    return p;
}

static struct hpcc_ctl_params&
Params()
{
    static struct hpcc_ctl_params p = ModuleDefaults();
    return p;
}

struct hpcc_ctl_params
HpccDefaultParams()
{
    return Params();
}

/* hpcc-sim --hpcc name=value: as modprobe tcp_hpcc name=value */
bool
HpccSetParam(const std::string& name, uint32_t v)
{
    struct hpcc_ctl_params& p = Params();
    if (name == "ecn") /* the module's load-time parameter, not the controller's */
    {
        g_hpcc_ecn = v ? 1 : 0;
        return true;
    }
    const std::map<std::string, uint32_t*> tab = {
        {"eta", &p.eta_permille},
        {"max_stage", &p.max_stage},
        {"ewma_rtts", &p.ewma_rtts},
        {"hop_ewma", &p.hop_ewma}, {"rate_ewma", &p.rate_ewma},
        {"ai_time", &p.ai_time}, {"law_time", &p.law_time},
        {"ewma_span", &p.ewma_span},
        {"qmin_span", &p.qmin_span}, {"first_qmin", &p.first_qmin},
        {"w_ai", &p.w_ai_bytes},
        {"expected_flows", &p.expected_flows},
        {"base_rtt", &p.base_rtt_us},
        {"queue_t", &p.queue_t_us},
        {"telemetry_timeout", &p.telemetry_timeout},
        {"max_mbps", &p.max_mbps},
        {"max_growth", &p.max_growth},
        {"loss_beta", &p.loss_beta}, {"loss_undo", &p.loss_undo},
        {"receiver_flows", &p.receiver_flows}, {"fair_pull", &p.fair_pull},
        {"fair_slack", &p.fair_slack}, {"fair_floor", &p.fair_floor},
        {"deliv_cap", &p.deliv_cap}, {"deliv_ai", &p.deliv_ai}, {"deliv_free", &p.deliv_free},
        {"cwnd_gain", &p.cwnd_gain}, {"cwnd_long", &p.cwnd_long_kb}, {"queue_room", &p.queue_room},
        {"handoff", &p.handoff},
        HPCC_CTL_DYNAMICS_PARAMS(p)    };
    auto t = tab.find(name);
    if (t == tab.end())
        return false;
    *t->second = v;
    return true;
}

/* ---- TcpHpcc ------------------------------------------------------------- */

TypeId
TcpHpcc::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpHpcc")
                            .SetParent<TcpLinuxReno>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpHpcc>();
    return tid;
}

TcpHpcc::TcpHpcc()
    : m_params(HpccDefaultParams())
{
    std::memset(&m_ctl, 0, sizeof(m_ctl));
    std::memset(m_report, 0, sizeof(m_report));
    m_rng = CreateObject<UniformRandomVariable>();
}

TcpHpcc::TcpHpcc(const TcpHpcc& o)
    : TcpLinuxReno(o),
      m_params(o.m_params)
{
    /* a forked socket (the server side) starts afresh, unattached */
    std::memset(&m_ctl, 0, sizeof(m_ctl));
    std::memset(m_report, 0, sizeof(m_report));
    m_rng = CreateObject<UniformRandomVariable>();
}

TcpHpcc::~TcpHpcc()
{
    Detach();
}

void
TcpHpcc::Attach(Ptr<HpccNet> net, Ipv4Address local, uint16_t lport, Ipv4Address remote,
                uint16_t rport)
{
    Detach();
    m_net = net;
    m_local = local;
    m_lport = lport;
    m_remote = remote;
    m_rport = rport;
    m_net->AddFlow({local.Get(), lport, remote.Get(), rport}, this);
}

void
TcpHpcc::Detach()
{
    if (m_net)
        m_net->DelFlow({m_local.Get(), m_lport, m_remote.Get(), m_rport});
    m_net = nullptr;
}

uint64_t
TcpHpcc::SrttNs() const
{
    /* hpcc_srtt_ns(): 1 ms until there is a sample */
    return m_srttNs ? m_srttNs : 1000000ULL;
}

/* the module's ecn parameter (TCP_CONG_NEEDS_ECN): ECN negotiated and CE
 * echoed per packet, as dctcp's receiver does (hpcc_echo_ce())
 */
void
TcpHpcc::Init(Ptr<TcpSocketState> tcb)
{
    if (!g_hpcc_ecn)
        return;
    tcb->m_useEcn = TcpSocketState::On;
    tcb->m_ecnMode = TcpSocketState::DctcpEcn;
    tcb->m_ectCodePoint = TcpSocketState::Ect0;
}

void
TcpHpcc::PktsAcked(Ptr<TcpSocketState>, uint32_t, const Time& rtt)
{
    uint64_t r = rtt.GetNanoSeconds();

    if (rtt.IsStrictlyPositive())
        m_srttNs = m_srttNs ? m_srttNs - (m_srttNs >> 3) + (r >> 3) : r;
}

void
TcpHpcc::View(Ptr<TcpSocketState> tcb, struct hpcc_tcp_view* v) const
{
    v->mss = std::max<uint32_t>(tcb->m_segmentSize, 1);
    v->snd_nxt = tcb->m_highTxMark.Get().GetValue();
    v->snd_una = tcb->m_lastAckedSeq.GetValue();
    v->cwnd = tcb->m_cWnd.Get() / v->mss;
    v->min_rtt_us =
        tcb->m_minRtt == Time::Max() ? ~0U : (uint32_t)tcb->m_minRtt.GetMicroSeconds();
    v->srtt_ns = SrttNs();
    v->recovering = tcb->m_congState.Get() >= TcpSocketState::CA_CWR;
    v->crowded = false;
    v->flows = 0;
    v->delivered = m_lastDelivered;
}

int
TcpHpcc::Report(const struct hpcc_probe* p, uint32_t len, uint32_t flows)
{
    int err = hpcc_ctl_check_response(p, len);

    if (!err && !hpcc_ctl_nonce_matches(p, m_probeNonce))
        err = -ESTALE;
    if (err)
    {
        HpccStats().rejected++;
        return err;
    }
    m_nhops = hpcc_ctl_decode(p, m_report);
    m_flows = flows;
    m_seq = m_probeSeq;
    m_probeNonce = 0; /* one response per probe */
    m_pending = true;
    HpccStats().reportsAccepted++;
    return 0;
}

uint32_t
TcpHpcc::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t)
{
    uint32_t mss = tcb->m_segmentSize;

    m_priorCwnd = tcb->m_cWnd;
    /* With telemetry the law sizes the window; a loss reduces W by
     * loss_beta (hpcc_ssthresh()).
     */
    if (m_ctl.telemetry)
    {
        hpcc_ctl_loss(&m_ctl, &m_params, mss);
        return hpcc_ctl_cwnd(&m_ctl, &m_params, mss, UINT32_MAX / mss, m_lastDelivered) *
               mss;
    }
    /* competing beside a marking AQM: dctcp's cut for CE, Reno's half for a
     * loss (the module tells them apart by the state the stack enters;
     * here the ACK that brought the reduction carried ECE or not)
     */
    uint32_t cut = hpcc_ctl_ecn_ssthresh(&m_ctl, &m_params, tcb->m_cWnd / mss);
    if (cut && tcb->m_ecnState == TcpSocketState::ECN_ECE_RCVD)
        return cut * mss;
    /* tcp_reno_ssthresh(): half of cwnd, at least 2 segments */
    return std::max<uint32_t>(tcb->m_cWnd / 2, 2 * mss);
}

void
TcpHpcc::CongestionStateSet(Ptr<TcpSocketState>, const TcpSocketState::TcpCongState_t newState)
{
    /* An RTO means the path is in trouble: fall back to loss-based. (ns-3
     * itself sets cwnd = ssthresh when recovery ends, as hpcc_set_state()
     * does.)
     */
    if (newState == TcpSocketState::CA_LOSS && m_ctl.telemetry)
        m_ctl.telemetry = false;
}

/* hpcc_reno(): the stack's Reno (ns-3's model of tcp_reno_cong_avoid(),
 * TcpLinuxReno) plus the module's conservation and pacing rules.
 */
void
TcpHpcc::Reno(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateSample& rs)
{
    uint32_t mss = tcb->m_segmentSize;
    int32_t acked = rs.m_ackedSacked > 0 ? (rs.m_ackedSacked + mss / 2) / mss : 0;
    auto state = tcb->m_congState.Get();
    uint64_t rate;

    if (state == TcpSocketState::CA_RECOVERY || state == TcpSocketState::CA_CWR)
    {
        uint32_t cwnd =
            hpcc_ctl_conserve_cwnd(tcb->m_cWnd / mss, tcb->m_bytesInFlight / mss, acked);
        tcb->m_cWnd = cwnd * mss;
    }
    else if (acked > 0)
    {
        TcpLinuxReno::IncreaseWindow(tcb, acked);
    }
    if (m_net)
        tcb->m_cWnd = hpcc_ctl_start_cwnd(&m_ctl, &m_params, tcb->m_cWnd / mss) * mss;
    rate = hpcc_ctl_reno_pacing_rate(mss,
                                     tcb->m_cWnd / mss,
                                     tcb->m_bytesInFlight / mss,
                                     SrttNs(),
                                     tcb->m_cWnd < tcb->m_ssThresh);
    tcb->m_pacingRate = std::min(DataRate(rate * 8), tcb->m_maxPacingRate);
}

/* hpcc_leave_telemetry() */
void
TcpHpcc::Fallback(Ptr<TcpSocketState> tcb)
{
    uint32_t mss = tcb->m_segmentSize;
    uint32_t cwnd = tcb->m_cWnd / mss, ssthresh;

    hpcc_ctl_fallback(&m_ctl, &cwnd, &ssthresh);
    tcb->m_cWnd = cwnd * mss;
    tcb->m_ssThresh = ssthresh * mss;
}

/* hpcc_consume_report(): true if there was a report */
bool
TcpHpcc::ConsumeReport(Ptr<TcpSocketState> tcb, uint64_t now)
{
    struct hpcc_ctl_params p = m_params;
    struct hpcc_tcp_view v;

    if (!m_pending)
        return false;
    m_pending = false;
    View(tcb, &v);
    if (!m_ctl.started)
        v.crowded = hpcc_ctl_crowded(&m_ctl, m_net->m_lastStart, v.srtt_ns);
    /* the receiver's N for W_ai */
    p.expected_flows = hpcc_ctl_flows(&p, m_flows);
    v.flows = hpcc_ctl_n(m_flows);
    if (hpcc_ctl_report(&m_ctl, &p, &v, m_report, m_nhops, m_seq, now))
    {
        HpccStats().reportsUsed++;
        if (p.path_share)
            hpcc_ctl_path_store(&m_net->m_paths[m_remote.Get()], m_report, m_nhops, now);
    }
    else
        HpccStats().reportsNoCapacity++;
    if (g_hpcc_law_trace)
        g_hpcc_law_trace(*this);
    if (m_ctl.events & HPCC_EV_COMPETE)
    {
        HpccStats().competeEntered++;
        Fallback(tcb);
    }
    return true;
}

/* hpcc_share_report() */
void
TcpHpcc::ShareReport(Ptr<TcpSocketState> tcb, uint64_t now)
{
    auto r = m_net->m_paths.find(m_remote.Get());
    struct hpcc_tcp_view v;

    if (r == m_net->m_paths.end())
        return;
    View(tcb, &v);
    if (!hpcc_ctl_path_usable(&m_ctl, &m_params, &r->second, now, v.srtt_ns))
        return;
    HpccStats().reportsShared++;
    hpcc_ctl_path_report(&m_ctl, &m_params, &v, &r->second, now);
    if (g_hpcc_law_trace)
        g_hpcc_law_trace(*this);
    if (m_ctl.events & HPCC_EV_COMPETE)
    {
        HpccStats().competeEntered++;
        Fallback(tcb);
    }
}

void
TcpHpcc::CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs)
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint32_t mss = tcb->m_segmentSize;
    uint32_t delivered = (uint32_t)rc.m_delivered;

    if (!m_net)
    {
        Reno(tcb, rs);
        return;
    }
    /* tcp_sock.delivered and delivered_ce, in bytes: ns-3 marks the state
     * of the ACK that delivered them (ECN_ECE_RCVD)
     */
    if (tcb->m_ecnState == TcpSocketState::ECN_ECE_RCVD)
        m_deliveredCe += delivered - (uint32_t)m_lastDelivered;
    m_lastDelivered = rc.m_delivered;
    /* ns-3's rate sample counts bytes (Linux's: packets) */
    if (rs.m_delivered > 0 && rs.m_interval.GetMicroSeconds() > 0)
        hpcc_ctl_deliv_sample(&m_ctl, (uint64_t)rs.m_delivered,
                              (uint64_t)rs.m_interval.GetMicroSeconds());
    hpcc_ctl_ecn_ack(&m_ctl, tcb->m_lastAckedSeq.GetValue(), tcb->m_highTxMark.Get().GetValue(),
                     delivered, m_deliveredCe);
    if (!ConsumeReport(tcb, now) && m_params.path_share)
        ShareReport(tcb, now);
    if (hpcc_ctl_handoff_wanted(&m_ctl, &m_params, rc.m_delivered))
        HandoffTake(now);
    if (hpcc_ctl_telemetry_lost(&m_ctl, &m_params, now, SrttNs(),
                                tcb->m_highTxMark.Get().GetValue()))
    {
        HpccStats().telemetryTimeouts++;
        Fallback(tcb);
    }
    if (m_ctl.telemetry)
    {
        tcb->m_cWnd = hpcc_ctl_cwnd(&m_ctl, &m_params, mss, UINT32_MAX / mss,
                                     m_lastDelivered) * mss;
        tcb->m_pacingRate = std::min(DataRate(m_ctl.pacing_rate * 8), tcb->m_maxPacingRate);
    }
    else
    {
        Reno(tcb, rs);
    }
    MaybeProbe(tcb, rs, now);
    hpcc_ctl_ack_done(&m_ctl, tcb->m_bytesInFlight > 0, now);
}

/* hpcc_handoff_give(): data sent within 4 RTTs is taken as given, as
 * the flow ends with its last data answered; hpcc_ctl_handoff_give()
 * checks the rest
 */
void
TcpHpcc::HandoffGive()
{
    if (!m_net || m_handed)
        return;
    if (hpcc_ctl_handoff_give(&m_net->m_pools[m_remote.Get()], &m_ctl, &m_params, true,
                              Simulator::Now().GetNanoSeconds(), SrttNs()))
    {
        m_handed = true;
        HpccStats().handoffsGiven++;
    }
}

/* hpcc_handoff_take() */
void
TcpHpcc::HandoffTake(uint64_t now)
{
    auto pool = m_net->m_pools.find(m_remote.Get());

    if (pool != m_net->m_pools.end() && hpcc_ctl_handoff_take(&pool->second, &m_ctl, now))
        HpccStats().handoffsTaken++;
}

/* hpcc_maybe_probe() and hpcc_build_probe() */
void
TcpHpcc::MaybeProbe(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateSample& rs, uint64_t now)
{
    uint64_t srtt = SrttNs();

    if (!hpcc_ctl_probe_due(&m_ctl, &m_params, now, srtt,
                            tcb->m_bytesInFlight > 0 || rs.m_priorInFlight > 0,
                            tcb->m_highTxMark.Get().GetValue()))
        return;
    SendProbe(tcb, now);
}

/* CA_EVENT_TX_START: probe_first's probe with the first data, and after idle */
void
TcpHpcc::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev)
{
    if (ev != TcpSocketState::CA_EVENT_TX_START || !m_net)
        return;
    uint64_t now = Simulator::Now().GetNanoSeconds();

    /* the flow's first data: its place among the host's starts */
    if (!m_ctl.start_ns && !m_ctl.started)
    {
        hpcc_ctl_start(&m_ctl, now, m_net->m_lastStart, SrttNs());
        m_net->m_lastStart = now;
    }
    bool restart = hpcc_ctl_tx_start(&m_ctl, now, SrttNs());

    if (hpcc_ctl_probe_first(&m_ctl, &m_params) ||
        (restart && !m_pending &&
         hpcc_ctl_probe_restart(&m_ctl, &m_params, now, SrttNs(),
                                tcb->m_highTxMark.Get().GetValue())))
        SendProbe(tcb, now);
}

void
TcpHpcc::SendProbe(Ptr<TcpSocketState> tcb, uint64_t now)
{
    uint64_t srtt = SrttNs();
    struct hpcc_probe p;
    uint32_t nonce;
    TcpHeader th;

    if (m_probeNonce)
    {
        HpccStats().probesLost++;
        hpcc_ctl_probe_lost(&m_ctl);
        m_probeNonce = 0;
    }
    nonce = m_rng->GetInteger(0, UINT32_MAX) | 1;
    std::memset(&p, 0, sizeof(p));
    p.hdr.version = HPCC_WIRE_VERSION;
    p.hdr.room = HPCC_MAX_HOPS;
    hpcc_put_be32(&p.hdr.nonce, nonce);
    hpcc_put_be64(&p.hdr.send_ns, now);
    m_probeNonce = nonce;
    m_probeSeq = tcb->m_highTxMark.Get().GetValue();
    hpcc_ctl_probe_sent(&m_ctl, now, srtt, m_probeSeq);

    /* flags 0: a receiver without the reflector discards it */
    Ptr<Packet> pkt = Create<Packet>(reinterpret_cast<const uint8_t*>(&p), HPCC_PROBE_LEN);
    th.SetSourcePort(m_lport);
    th.SetDestinationPort(m_rport);
    th.SetSequenceNumber(tcb->m_highTxMark);
    th.SetFlags(0);
    th.SetWindowSize(0);
    pkt->AddHeader(th);
    /* the data's ECN codepoint (hpcc_send_probe()) */
    m_net->SendProbe(pkt, m_local, m_remote,
                     tcb->m_ecnState != TcpSocketState::ECN_DISABLED ? tcb->m_ectCodePoint : 0);
    HpccStats().probesSent++;
}

/* ---- HpccNet --------------------------------------------------------------- */

TypeId
HpccNet::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HpccNet")
                            .SetParent<TrafficControlLayer>()
                            .SetGroupName("TrafficControl")
                            .AddConstructor<HpccNet>();
    return tid;
}

HpccNet::Kind
HpccNet::Classify(Ptr<const Packet> p,
                  uint8_t dscp,
                  uint8_t probeDscp,
                  uint8_t respDscp,
                  TcpHeader* th,
                  struct hpcc_probe* probe)
{
    uint32_t hl, len;
    bool resp;

    if (dscp != probeDscp && dscp != respDscp)
        return OTHER;
    if (p->GetSize() < 20)
        return OTHER;
    p->PeekHeader(*th);
    if (th->GetFlags() != 0) /* only flagless segments are candidates */
        return OTHER;
    hl = th->GetSerializedSize();
    len = p->GetSize() - hl;
    std::memset(probe, 0, sizeof(*probe));
    if (len == HPCC_PROBE_LEN)
    {
        std::vector<uint8_t> buf(p->GetSize());
        p->CopyData(buf.data(), buf.size());
        std::memcpy(probe, buf.data() + hl, HPCC_PROBE_LEN);
    }
    if (hpcc_wire_check(&probe->hdr, len))
        return MALFORMED;
    resp = probe->hdr.flags & HPCC_F_RESPONSE;
    if (resp ? dscp != respDscp : dscp != probeDscp)
        return MALFORMED;
    return resp ? RESPONSE : PROBE;
}

/* Rebuild the packet with the new payload: same TCP header, same size. */
static void
HpccRewrite(Ptr<Packet> pkt, const TcpHeader& th, const struct hpcc_probe& probe)
{
    pkt->RemoveAtStart(pkt->GetSize());
    pkt->AddAtEnd(Create<Packet>(reinterpret_cast<const uint8_t*>(&probe), HPCC_PROBE_LEN));
    pkt->AddHeader(th);
}

enum hpcc_stamp_action
HpccNet::Stamp(Ptr<Ipv4QueueDiscItem> item, const struct hpcc_stamp_in& in)
{
    struct hpcc_probe probe;
    TcpHeader th;
    Ptr<Packet> pkt = item->GetPacket();
    std::vector<uint8_t> buf(pkt->GetSize());
    enum hpcc_stamp_action a;

    pkt->PeekHeader(th);
    pkt->CopyData(buf.data(), buf.size());
    std::memcpy(&probe, buf.data() + th.GetSerializedSize(), HPCC_PROBE_LEN);
    a = hpcc_stamp_probe(&probe, &in);
    if (a != HPCC_STAMP_NOTHING)
        HpccRewrite(pkt, th, probe);
    return a;
}

int g_hpcc_forge;
Ipv4Address g_hpcc_forge_src;

Ptr<Packet>
HpccNet::Reflect(const Ipv4Header& ip, Ptr<const Packet> p, uint8_t respDscp, Ipv4Header* rip)
{
    struct hpcc_probe probe;
    struct hpcc_hdr nw;
    TcpHeader th, rth;
    Ptr<Packet> out = p->Copy();
    std::vector<uint8_t> buf(p->GetSize());

    out->PeekHeader(th);
    out->CopyData(buf.data(), buf.size());
    std::memcpy(&probe, buf.data() + th.GetSerializedSize(), HPCC_PROBE_LEN);
    hpcc_respond_hdr(&probe.hdr, &nw);
    probe.hdr.flags = nw.flags;
    if (g_hpcc_forge && ip.GetSource() == g_hpcc_forge_src)
    {
        for (unsigned int i = 0; i < probe.hdr.nhops && i < HPCC_MAX_HOPS; i++)
        {
            if (g_hpcc_forge == 1)
            {
                hpcc_put_be32(&probe.hop[i].rate_mbps, 4000000000U);
                hpcc_put_be32(&probe.hop[i].qlen, 0);
            }
            else
            {
                hpcc_put_be32(&probe.hop[i].qlen, 0xffffffffU);
            }
        }
    }
    /* ports swapped; sequence and everything else as they came */
    rth = th;
    rth.SetSourcePort(th.GetDestinationPort());
    rth.SetDestinationPort(th.GetSourcePort());
    HpccRewrite(out, rth, probe);
    *rip = ip;
    rip->SetSource(ip.GetDestination());
    rip->SetDestination(ip.GetSource());
    rip->SetTos((uint8_t)((ip.GetTos() & 0x3) | (respDscp << 2)));
    rip->SetTtl(HPCC_RESP_TTL);
    return out;
}

void
HpccNet::SendProbe(Ptr<Packet> pkt, Ipv4Address src, Ipv4Address dst, uint8_t ecn)
{
    Ptr<Ipv4L3Protocol> ip = GetObject<Ipv4L3Protocol>();
    SocketIpTosTag tos;

    tos.SetTos(m_probeDscp << 2 | (ecn & 3));
    pkt->AddPacketTag(tos);
    ip->Send(pkt, src, dst, TcpL4Protocol::PROT_NUMBER, nullptr);
}

void
HpccNet::Send(Ptr<NetDevice> device, Ptr<QueueDiscItem> item)
{
    auto port = m_ports.find(device);
    Ptr<Ipv4QueueDiscItem> ipi;

    if (port != m_ports.end() && (ipi = DynamicCast<Ipv4QueueDiscItem>(item)) &&
        ipi->GetHeader().GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        struct hpcc_probe probe;
        TcpHeader th;

        if (Classify(ipi->GetPacket(),
                     ipi->GetHeader().GetTos() >> 2,
                     m_probeDscp,
                     m_respDscp,
                     &th,
                     &probe) == PROBE)
        {
            /* One consistent snapshot of the port where the probe enters
             * its queue: the root qdisc's backlog ahead of it and the bytes
             * it has sent, with the time now.
             */
            const HpccPortCfg& c = port->second;
            Ptr<QueueDisc> q = GetRootQueueDiscOnDevice(device);
            struct hpcc_stamp_in in;

            in.switch_id = c.switchId;
            in.port_id = hpcc_stamp_port_id(c.flags, c.portId, device->GetIfIndex());
            in.rate_mbps = c.rateMbps;
            in.qlen = q ? q->GetNBytes() : 0;
            in.tx_bytes = q ? q->GetStats().nTotalSentBytes : 0;
            in.ts_ns = Simulator::Now().GetNanoSeconds();
            if (Stamp(ipi, in) == HPCC_STAMP_HOP)
                HpccStats().stamped++;
            else
                HpccStats().overflow++;
        }
    }
    TrafficControlLayer::Send(device, item);
}

void
HpccNet::Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> p,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType packetType)
{
    if (m_host && protocol == Ipv4L3Protocol::PROT_NUMBER)
    {
        Ptr<Packet> c = p->Copy();
        struct hpcc_probe probe;
        Ipv4Header ip;
        TcpHeader th;
        Kind k;

        c->RemoveHeader(ip);
        k = ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER
                ? Classify(c, ip.GetTos() >> 2, m_probeDscp, m_respDscp, &th, &probe)
                : OTHER;
        if (k == MALFORMED)
            return; /* dropped, as TCP would */
        if (k == PROBE)
        {
            uint64_t now = Simulator::Now().GetNanoSeconds();
            const uint64_t epoch = HPCC_FC_EPOCH_US_DEFAULT * 1000ULL;
            uint8_t t[12];
            Ipv4Header rip;
            Ptr<Packet> r = Reflect(ip, c, m_respDscp, &rip);
            HpccFlowsTag tag;

            /* hpcc_count_flow(): the probe's addresses and ports */
            ip.GetSource().Serialize(t);
            ip.GetDestination().Serialize(t + 4);
            t[8] = th.GetSourcePort() >> 8;
            t[9] = th.GetSourcePort() & 0xff;
            t[10] = th.GetDestinationPort() >> 8;
            t[11] = th.GetDestinationPort() & 0xff;
            hpcc_fc_add(&m_fc, now, epoch, hpcc_fc_hash(t, sizeof(t)));
            tag.n = hpcc_fc_flows(&m_fc, now, epoch);
            r->AddPacketTag(tag);

            HpccStats().reflected++;
            /* bpf_redirect() to the device it came in on */
            TrafficControlLayer::Send(device,
                                      Create<Ipv4QueueDiscItem>(r,
                                                                device->GetBroadcast(),
                                                                Ipv4L3Protocol::PROT_NUMBER,
                                                                rip));
            return;
        }
        if (k == RESPONSE)
        {
            /* the response travels peer -> us: the flow is (dst, src) */
            auto f = m_flows.find({ip.GetDestination().Get(),
                                   th.GetDestinationPort(),
                                   ip.GetSource().Get(),
                                   th.GetSourcePort()});
            HpccFlowsTag tag;

            if (f == m_flows.end())
                HpccStats().noFlow++;
            else if (f->second->Report(&probe, HPCC_PROBE_LEN,
                                       p->PeekPacketTag(tag) ? tag.n : 0) == 0)
                HpccStats().delivered++;
            return;
        }
    }
    TrafficControlLayer::Receive(device, p, protocol, from, to, packetType);
}

TypeId
HpccFlowsTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HpccFlowsTag").SetParent<Tag>().AddConstructor<HpccFlowsTag>();
    return tid;
}

/* ---- the stack ---------------------------------------------------------------- */

Ptr<HpccNet>
HpccInstallStack(Ptr<Node> node)
{
    Ptr<HpccNet> tc = CreateObject<HpccNet>();

    node->AggregateObject(CreateObject<ArpL3Protocol>());
    node->AggregateObject(CreateObject<Ipv4L3Protocol>());
    node->AggregateObject(CreateObject<Icmpv4L4Protocol>());
    Ipv4StaticRoutingHelper srh;
    Ipv4ListRoutingHelper lrh;
    lrh.Add(srh, 0);
    node->GetObject<Ipv4>()->SetRoutingProtocol(lrh.Create(node));
    node->AggregateObject(tc);
    node->AggregateObject(CreateObject<UdpL4Protocol>());
    node->AggregateObject(CreateObject<TcpL4Protocol>());
    node->AggregateObject(CreateObject<PacketSocketFactory>());
    node->GetObject<ArpL3Protocol>()->SetTrafficControl(tc);
    return tc;
}

} // namespace ns3
