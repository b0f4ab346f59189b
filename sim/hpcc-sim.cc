/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc-sim: one run of one scenario for one congestion control on the ns-3
 * model, printing the demo's raw data format (demo/scenarios.sh):
 *   @@csv SCEN/CC/rREP/{queue,flows,samples,events}.csv@@ ROW   (header first)
 *   @@csv SCEN/CC/rREP/{qpct,drops,rto,util}.csv@@ ROW          (fabric)
 *   @@csv {runs,cost,hpcc}.csv@@ ROW   (one row per run, no header: these
 *                                      gather every run, sim/run.sh writes
 *                                      their header once)
 * so that demo/analyze.py computes the very same metrics as for the VM.
 *
 *   hpcc-sim --scenario long|incast|stagger|websearch|smoke \
 *            --cc hpcc|dctcp|cubic|bbr [--rep N] [--seed N] [--profile demo|long|smoke]
 *   hpcc-sim --scenario fabric --cc CC --cdf websearch|fbhadoop --load 0.5 \
 *            --flows N [--incast 0|1] [--seed N]
 *
 * The dumbbell is demo/topo_dc.sh's: s1..s3 -> r1 -> r2 -> d1,d2, the r2->d
 * ports the 100 Mbit/s bottlenecks (500 KB drop-tail, or RED ECN marking
 * above K = 30 KB for dctcp), telemetry on r1->r2 (declared 1 Gbit/s,
 * switch 1) and r2->d1, r2->d2 (switch 2). The fabric: see BuildFabric().
 */
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <ctime>
#include <sstream>
#include <cstdio>
#include <string>
#include <vector>

#include "hpcc-model.h"
#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"

extern "C" {
#include "flowcdf.h"
}

using namespace ns3;

/* ---- output ----------------------------------------------------------------- */

static std::string g_dir; /* SCEN/CC/rREP */
static int g_join = 8;    /* join: flows in all */
static bool g_law_trace;  /* --law_trace: law.csv */
static FILE* g_out = stdout;

static void
Emit(const std::string& file, const std::string& row)
{
    fprintf(g_out, "@@csv %s/%s@@ %s\n", g_dir.c_str(), file.c_str(), row.c_str());
}

static std::string
Fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));

static std::string
Fmt(const char* f, ...)
{
    char b[512];
    va_list ap;

    va_start(ap, f);
    vsnprintf(b, sizeof(b), f, ap);
    va_end(ap);
    return b;
}

/* ---- Linux's TCP defaults where ns-3's differ ------------------------------ */

static void
LinuxTcpDefaults()
{
    /* 1500-byte IP packets with the timestamp option: 1448 bytes of payload */
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    /* TCP_RTO_MIN 200 ms; TCP_TIMEOUT_INIT 1 s */
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    /* delayed ACKs: every 2nd full segment, TCP_DELACK_MIN 40 ms */
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    /* tcp_wmem/tcp_rmem maxima (autotuning reaches them on these paths) */
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4194304));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(6291456));
    /* Linux paces only when the CC asks (bbr, hpcc): per socket below */
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketState::MaxPacingRate", DataRateValue(DataRate("400Gbps")));
    Config::SetDefault("ns3::TcpSocketState::PaceInitialWindow", BooleanValue(true));
    /* ms-granularity RTO timer like jiffies at HZ=1000 */
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
}

static std::string g_cc = "hpcc";
/* the dumbbell's bottlenecks: RED ECN marking (dctcp's K) or drop-tail */
static bool g_ecn = false;
/* --aqm=red: RED ECN marking for every CC (hpcc alone on dctcp's ports) */
static std::string g_aqm = "auto";
/* the receivers' (listening sockets') CC: dctcp's receivers echo CE per
 * packet (TcpSocketBase's DctcpEcn mode)
 */
static std::string g_srv_cc = "hpcc";

/* ns-3.37's TcpDctcp::GetSsThresh() is cwnd x (1 - alpha/2) with no floor:
 * under marking a window falls to one segment, and the receiver, waiting
 * for a second one (DelAckCount 2), delays every ACK by 40 ms. Linux's
 * dctcp_ssthresh() never goes below 2 segments.
 */
class TcpLinuxDctcp : public TcpDctcp
{
  public:
    TcpLinuxDctcp() = default;
    TcpLinuxDctcp(const TcpLinuxDctcp& o) = default;

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight), 2 * tcb->m_segmentSize);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpLinuxDctcp>(this);
    }
};

static Ptr<TcpCongestionOps>
MakeCc(const std::string& cc)
{
    if (cc == "hpcc")
        return CreateObject<TcpHpcc>();
    if (cc == "dctcp")
        return CreateObject<TcpLinuxDctcp>();
    if (cc == "bbr")
        return CreateObject<TcpBbr>();
    return CreateObject<TcpCubic>();
}

/* ---- the flow generator (demo/fctgen.c's protocol) --------------------------- */

struct Host
{
    Ptr<Node> node;
    Ptr<HpccNet> net;
    Ipv4Address addr;
};

static const uint16_t kPort = 5004;

/* Retransmission timeouts: ns-3 enters CA_LOSS only from its RTO timer
 * (TcpSocketBase::ReTxTimeout), as Linux's tcp_enter_loss() is called from
 * tcp_retransmit_timer(). Senders (the flows) and receivers (the 1-byte
 * answer, SYN-ACKs) are counted apart.
 */
static uint64_t g_rto_rcv = 0;

static void
CountRto(uint64_t* ctr, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    if (v == TcpSocketState::CA_LOSS)
        (*ctr)++;
}

/* fctgen server: 8-byte big-endian size S, then S bytes, answer 1 byte */
class FlowServer
{
  public:
    void Start(Host h)
    {
        Ptr<Socket> s = Socket::CreateSocket(h.node, TcpSocketFactory::GetTypeId());
        Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
        tcp->SetCongestionControlAlgorithm(MakeCc(g_srv_cc)); /* accepted sockets inherit it */
        if (g_srv_cc == "dctcp")
            tcp->SetUseEcn(TcpSocketState::On);
        s->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
        s->Listen();
        s->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeCallback(&FlowServer::Accept, this));
        m_listen = s;
    }

  private:
    struct Conn
    {
        uint64_t need = 0, got = 0;
        uint8_t hdr[8];
        uint32_t hlen = 0;
        bool answered = false;
    };

    void Accept(Ptr<Socket> s, const Address&)
    {
        m_conns[s] = Conn();
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CountRto, &g_rto_rcv));
        s->SetRecvCallback(MakeCallback(&FlowServer::Recv, this));
    }

    void Recv(Ptr<Socket> s)
    {
        Conn& c = m_conns[s];
        Ptr<Packet> p;
        uint8_t buf[65536];

        while ((p = s->Recv()) && p->GetSize())
        {
            uint32_t n = p->GetSize(), off = 0;
            if (c.hlen < 8)
            {
                uint32_t k = std::min<uint32_t>(8 - c.hlen, n);
                p->CopyData(buf, std::min<uint32_t>(n, sizeof(buf)));
                std::memcpy(c.hdr + c.hlen, buf, k);
                c.hlen += k;
                off = k;
                if (c.hlen == 8)
                    for (int i = 0; i < 8; i++)
                        c.need = c.need << 8 | c.hdr[i];
            }
            c.got += n - off;
        }
        if (c.hlen == 8 && !c.answered && c.got >= c.need)
        {
            uint8_t one = 1;
            c.answered = true;
            s->Send(Create<Packet>(&one, 1));
            s->Close();
        }
    }

    Ptr<Socket> m_listen;
    std::map<Ptr<Socket>, Conn> m_conns;
};

struct FlowRec
{
    std::string tag;
    std::string cc;
    int id;
    Host src, dst;
    uint64_t size; /* ~0: long flow */
    double start, dur;
    double t_end = -1;
    uint64_t queued = 0; /* bytes handed to the socket */
    Ptr<TcpSocketBase> sock;
    /* samples */
    uint64_t acked = 0;
    uint64_t rtos = 0;
    double srtt_us = 0;
    uint32_t cwnd = 0;
    bool stopped = false;
};

static std::vector<FlowRec*> g_flows;
static uint64_t g_done = 0, g_total_short = 0;


static void
FillTx(FlowRec* f)
{
    static uint8_t zeros[65536];
    Ptr<Socket> s = f->sock;

    if (f->stopped)
        return;
    uint64_t total = f->size == ~0ULL ? ~0ULL : f->size + 8;

    while (f->queued < total)
    {
        uint32_t room = s->GetTxAvailable();
        uint64_t left = total - f->queued;
        uint32_t n = (uint32_t)std::min<uint64_t>({left, room, sizeof(zeros)});
        if (!n)
            break;
        Ptr<Packet> p;
        if (f->queued == 0)
        {
            uint8_t hdr[8];
            uint64_t sz = f->size == ~0ULL ? ~0ULL : f->size;
            for (int i = 0; i < 8; i++)
                hdr[i] = (uint8_t)(sz >> (56 - 8 * i));
            p = Create<Packet>(hdr, 8);
        }
        else
        {
            p = Create<Packet>(n);
        }
        int r = s->Send(p);
        if (r <= 0)
            break;
        f->queued += (uint32_t)r;
    }
}

/* The socket's own controller, to attach it to the node's HpccNet. */
static std::map<FlowRec*, Ptr<TcpHpcc>> g_hpcc;

static void
OnAnswer(FlowRec* f, Ptr<Socket> s)
{
    Ptr<Packet> p;
    while ((p = s->Recv()) && p->GetSize())
        if (f->t_end < 0)
        {
            f->t_end = Simulator::Now().GetSeconds();
            g_done++;
            if (g_hpcc.count(f))
                g_hpcc[f]->HandoffGive();
            s->Close();
        }
}

static void
OnConnected(FlowRec* f, Ptr<Socket>)
{
    FillTx(f);
}

static void
OnConnectedHpcc(FlowRec* f, Ptr<Socket> s)
{
    Address la, ra;
    s->GetSockName(la);
    s->GetPeerName(ra);
    InetSocketAddress l = InetSocketAddress::ConvertFrom(la);
    InetSocketAddress r = InetSocketAddress::ConvertFrom(ra);
    g_hpcc[f]->Attach(f->src.net, l.GetIpv4(), l.GetPort(), r.GetIpv4(), r.GetPort());
    FillTx(f);
}

static void
StopLong(FlowRec* f)
{
    f->stopped = true;
    f->t_end = Simulator::Now().GetSeconds();
    f->sock->Close();
}

static void
StartFlow(FlowRec* f)
{
    Ptr<Socket> s = Socket::CreateSocket(f->src.node, TcpSocketFactory::GetTypeId());
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
    Ptr<TcpCongestionOps> cc = MakeCc(f->cc);

    f->sock = tcp;
    tcp->SetCongestionControlAlgorithm(cc);
    if (f->cc == "dctcp")
        tcp->SetUseEcn(TcpSocketState::On);
    if (f->cc == "bbr" || f->cc == "hpcc")
        tcp->SetPacingStatus(true);
    s->Bind();
    s->SetSendCallback(MakeBoundCallback(+[](FlowRec* f, Ptr<Socket>, uint32_t) { FillTx(f); }, f));
    s->SetRecvCallback(MakeBoundCallback(&OnAnswer, f));
    if (f->cc == "hpcc")
    {
        g_hpcc[f] = DynamicCast<TcpHpcc>(cc);
        s->SetConnectCallback(MakeBoundCallback(&OnConnectedHpcc, f),
                              MakeNullCallback<void, Ptr<Socket>>());
    }
    else
    {
        s->SetConnectCallback(MakeBoundCallback(&OnConnected, f),
                              MakeNullCallback<void, Ptr<Socket>>());
    }
    tcp->TraceConnectWithoutContext(
        "HighestRxAck",
        MakeBoundCallback(+[](FlowRec* f, SequenceNumber32, SequenceNumber32 v) {
            f->acked = v.GetValue() > 1 ? v.GetValue() - 1 : 0; /* SYN takes one */
        }, f));
    tcp->TraceConnectWithoutContext(
        "RTT", MakeBoundCallback(+[](FlowRec* f, Time, Time v) {
            double us = v.GetMicroSeconds();
            f->srtt_us = f->srtt_us ? f->srtt_us * 7 / 8 + us / 8 : us; /* tcpi_rtt */
        }, f));
    tcp->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CountRto, &f->rtos));
    tcp->TraceConnectWithoutContext(
        "CongestionWindow",
        MakeBoundCallback(+[](FlowRec* f, uint32_t, uint32_t v) { f->cwnd = v; }, f));
    s->Connect(InetSocketAddress(f->dst.addr, kPort));
    if (f->size == ~0ULL)
        Simulator::Schedule(Seconds(f->dur), &StopLong, f);
}

static FlowRec*
AddFlow(const std::string& tag, Host src, Host dst, uint64_t size, double start, double dur,
        const std::string& cc = g_cc)
{
    FlowRec* f = new FlowRec();
    f->tag = tag;
    f->cc = cc;
    f->id = (int)g_flows.size();
    f->src = src;
    f->dst = dst;
    f->size = size;
    f->start = start;
    f->dur = dur;
    if (size != ~0ULL)
        g_total_short++;
    g_flows.push_back(f);
    Simulator::Schedule(Seconds(start), &StartFlow, f);
    return f;
}

/* TCP_INFO samples of the long flows every 50 ms, as fctgen takes them. */
static void
SampleFlows(double every, double until)
{
    for (FlowRec* f : g_flows)
        if (f->size == ~0ULL && f->sock && !f->stopped)
            Emit("samples.csv",
                 Fmt("%s,%d,%.6f,%" PRIu64 ",%.0f,%u,0",
                     f->tag.c_str(), f->id, Simulator::Now().GetSeconds(), f->acked,
                     f->srtt_us, f->cwnd / 1448));
    if (Simulator::Now().GetSeconds() + every <= until)
        Simulator::Schedule(Seconds(every), &SampleFlows, every, until);
}

/* ---- queues ------------------------------------------------------------------ */

struct QPort
{
    std::string name;
    Ptr<QueueDisc> q;
    /* for the fabric: percentiles over every sample */
    std::vector<uint32_t> samples;
};

static std::vector<QPort> g_qports;
static std::vector<QPort> g_nics; /* hosts' own qdiscs: drops only */
static bool g_emit_queue = true;

static void
SampleQueues(double every, double until)
{
    for (QPort& p : g_qports)
    {
        const QueueDisc::Stats& st = p.q->GetStats();
        if (g_emit_queue)
            Emit("queue.csv",
                 Fmt("%.6f,%s,%u,%u,%u,%" PRIu64 ",%u,%u",
                     Simulator::Now().GetSeconds(), p.name.c_str(), p.q->GetNBytes(),
                     p.q->GetNPackets(), st.nTotalDroppedPackets, st.nTotalSentBytes,
                     st.nTotalSentPackets, st.nTotalMarkedPackets));
        else
            p.samples.push_back(p.q->GetNBytes());
    }
    for (QPort& p : g_nics)
        p.samples.push_back(p.q->GetNBytes());
    if (Simulator::Now().GetSeconds() + every <= until)
        Simulator::Schedule(Seconds(every), &SampleQueues, every, until);
}

/* ---- topology helpers -------------------------------------------------------- */

static uint32_t g_net_id = 0;

struct Link
{
    Ptr<NetDevice> a, b;
    Ipv4Address ia, ib;
};

static Link
Connect(Ptr<Node> a, Ptr<Node> b, const std::string& rate, Time delay)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(delay));
    /* one packet in the device: the backlog lives in the root qdisc */
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    NetDeviceContainer d = p2p.Install(a, b);
    Ipv4AddressHelper ah;
    uint32_t n = ++g_net_id;
    ah.SetBase(Ipv4Address((10u << 24) | ((n >> 8) << 16) | ((n & 0xff) << 8)),
               "255.255.255.0");
    Ipv4InterfaceContainer ic = ah.Assign(d);
    return {d.Get(0), d.Get(1), ic.GetAddress(0), ic.GetAddress(1)};
}

static Ptr<QueueDisc>
InstallQdisc(Ptr<NetDevice> dev, bool ecn, uint32_t limit_bytes, uint32_t k_bytes)
{
    TrafficControlHelper tch;
    /* Ipv4AddressHelper gave every device ns-3's default (pfifo_fast) */
    dev->GetNode()->GetObject<TrafficControlLayer>()->DeleteRootQueueDiscOnDevice(dev);
    if (ecn)
        /* tc red min K max K+1500 probability 1.0 ecn burst 21 avpkt 1500:
         * Linux's red computes W = 2^-2 from burst/min/avpkt
         */
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, limit_bytes)),
                             "MinTh", DoubleValue(k_bytes), "MaxTh", DoubleValue(k_bytes + 1500),
                             "MeanPktSize", UintegerValue(1500), "QW", DoubleValue(0.25),
                             "LInterm", DoubleValue(1), "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false), "Gentle", BooleanValue(false));
    else
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, limit_bytes)));
    QueueDiscContainer qc = tch.Install(dev);
    return qc.Get(0);
}

static void
Route(Ptr<Node> n, Ipv4Address dst, Ipv4Mask mask, Ipv4Address nh, Ptr<NetDevice> dev)
{
    Ipv4StaticRoutingHelper h;
    Ptr<Ipv4> ip = n->GetObject<Ipv4>();
    h.GetStaticRouting(ip)->AddNetworkRouteTo(dst, mask, nh, ip->GetInterfaceForDevice(dev));
}

static uint32_t
Mbps(const std::string& r)
{
    return (uint32_t)(DataRate(r).GetBitRate() / 1000000);
}

/* ---- the VM bench's dumbbell -------------------------------------------------- */

struct Profile
{
    double long_dur, incast_dur, stagger_dur, ws_dur, ws_drain;
    int incast_bursts;
};

static double g_base_rtt_ms;

/* The dumbbell's variants (issue 11's scenarios). */
struct DumbOpts
{
    /* each sender's access link delay (one way) */
    Time s_delay[3] = {MicroSeconds(2000), MicroSeconds(2000), MicroSeconds(2000)};
    /* parking lot: r1->r2 a second 100 Mbit/s bottleneck, a receiver x
     * behind r2 and a sender y beside it (Host s[3], d[2] as before; x, y
     * in g_px, g_py)
     */
    bool parking = false;
    /* delay jitter on every access link, each direction uniform in
     * [0, jitter x base RTT / 2] (netem's jitter without reordering)
     */
    double jitter = 0;
    /* stalls on the same links, as the VM's late netem timers: each link
     * holds what enters it until a stall's end; stalls begin at stall_rate
     * per second (Poisson), each lasting up to stall_ms (uniform)
     */
    double stall_rate = 0, stall_ms = 0;
    /* incast: each short flow starts uniformly in [0, spread_ms] ms after
     * its burst's time (the VM's fctgen threads start theirs over ~30 ms);
     * many: each long flow in [0, spread_ms] (the VM's over ~16 ms)
     */
    double spread_ms = 0;
    /* the bottlenecks' rate; RED's K scales with it (30 KB at 100 Mbit/s)
     * but stays at least 6 packets, as selftests/hpcc_ecn.sh's does
     */
    uint32_t bottleneck_mbps = 100;
};

static DumbOpts g_dopt;
static Host g_px, g_py;

/* Delay jitter on one direction of a point-to-point link: the channel's
 * delay is set just before each packet enters it (PhyTxBegin precedes
 * PointToPointChannel::TransmitStart, which reads it), never so that a
 * packet arrives before the one sent ahead of it.
 */
struct Jitter
{
    Ptr<PointToPointChannel> ch;
    Ptr<UniformRandomVariable> rng;
    Ptr<ExponentialRandomVariable> gap;
    double base_s, max_s, rate_bps;
    double last_arrival = 0;
    double stall_s = 0, stall_end = 0, next_stall = 0;
};

static void
JitterTx(Jitter* j, Ptr<const Packet> p)
{
    double now = Simulator::Now().GetSeconds();
    double tx = p->GetSize() * 8.0 / j->rate_bps;
    double d = j->base_s + j->rng->GetValue(0, j->max_s);

    while (j->gap && now >= j->next_stall)
    {
        /* stalls that overlap hold until the later end */
        j->stall_end = std::max(j->stall_end, j->next_stall + j->rng->GetValue(0, j->stall_s));
        j->next_stall += j->gap->GetValue();
    }
    if (now < j->stall_end && j->stall_end - now + j->base_s > d)
        d = j->stall_end - now + j->base_s;

    if (now + tx + d < j->last_arrival)
        d = j->last_arrival - now - tx;
    j->last_arrival = now + tx + d;
    j->ch->SetAttribute("Delay", TimeValue(Seconds(d)));
}

static void
AddJitter(Ptr<NetDevice> dev, double base_s, double max_s, double rate_bps)
{
    Jitter* j = new Jitter();
    j->ch = DynamicCast<PointToPointChannel>(dev->GetChannel());
    j->rng = CreateObject<UniformRandomVariable>();
    j->base_s = base_s;
    j->max_s = max_s;
    j->rate_bps = rate_bps;
    if (g_dopt.stall_rate > 0 && g_dopt.stall_ms > 0)
    {
        j->gap = CreateObject<ExponentialRandomVariable>();
        j->gap->SetAttribute("Mean", DoubleValue(1 / g_dopt.stall_rate));
        j->stall_s = g_dopt.stall_ms / 1e3;
        j->next_stall = j->gap->GetValue();
    }
    dev->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&JitterTx, j));
}

/* The parking lot's x, a receiver behind r2 (1 Gbit/s, crossing only
 * r1->r2 from r1's senders), and y, a sender at r2 (crossing only r2->d1);
 * their links' delays.
 */
static void
ParkingHosts(Ptr<Node> r1, Ptr<Node> r2, Ptr<HpccNet> n2, const Link& rr,
             std::array<Time, 2> dl)
{
    const std::string fast = "1Gbps";
    Host* hs[2] = {&g_px, &g_py};

    for (int i = 0; i < 2; i++)
    {
        Host& h = *hs[i];
        h.node = CreateObject<Node>();
        h.net = HpccInstallStack(h.node);
        h.net->AttachHost();
        Link l = Connect(r2, h.node, fast, dl[i]);
        h.addr = l.ib;
        Route(h.node, "0.0.0.0", "0.0.0.0", l.ia, l.b);
        Route(r2, l.ib, "255.255.255.255", l.ib, l.a);
        Route(r1, l.ib, "255.255.255.255", rr.ib, rr.a);
        InstallQdisc(l.a, false, 1000 * 1500, 0);
        InstallQdisc(l.b, false, 1000 * 1500, 0);
        n2->AttachSwitch(l.a, {2, 0, 0, Mbps(fast)});
    }
}

/* Three senders behind r1, two receivers behind r2 (demo/topo_dc.sh). */
static void
DumbbellTopology(Host s[3], Host d[2])
{
    const DumbOpts& o = g_dopt;
    NS_ABORT_MSG_IF(!o.bottleneck_mbps, "hpcc-sim: --bottleneck must be at least 1 (Mbit/s)");
    const std::string bott = Fmt("%uMbps", o.bottleneck_mbps), fast = "1Gbps";
    const uint32_t buf = 500000, k = std::max(300 * o.bottleneck_mbps, 9000u);
    bool ecn = g_ecn;
    Ptr<Node> r1 = CreateObject<Node>(), r2 = CreateObject<Node>();
    Ptr<HpccNet> n1 = HpccInstallStack(r1), n2 = HpccInstallStack(r2);
    /* netem 4 ms + the VM's ~0.57 ms of veth/stack: its min ping RTT 4.569 ms */
    Time d_rr = MicroSeconds(180), d_rd = MicroSeconds(100);
    Time d_sr = o.s_delay[0];
    Link sl[3];

    for (int i = 0; i < 3; i++)
    {
        s[i].node = CreateObject<Node>();
        s[i].net = HpccInstallStack(s[i].node);
        s[i].net->AttachHost();
        Link l = sl[i] = Connect(s[i].node, r1, fast, o.s_delay[i]);
        s[i].addr = l.ia;
        Route(s[i].node, "0.0.0.0", "0.0.0.0", l.ib, l.a);
        Route(r1, l.ia, "255.255.255.255", l.ia, l.b);
        InstallQdisc(l.b, false, 1000 * 1500, 0);
    }
    Link rr = Connect(r1, r2, o.parking ? bott : fast, d_rr);
    if (o.parking)
    {
        Ptr<QueueDisc> q = InstallQdisc(rr.a, ecn, buf, k);
        n1->AttachSwitch(rr.a, {1, 0, 0, Mbps(bott)});
        g_qports.push_back({"r1r2", q, {}});
    }
    else
    {
        InstallQdisc(rr.a, false, 1000 * 1500, 0); /* pfifo limit 1000 */
        n1->AttachSwitch(rr.a, {1, 0, 0, Mbps(fast)});
    }
    InstallQdisc(rr.b, false, 1000 * 1500, 0);
    for (int j = 0; j < 2; j++)
    {
        d[j].node = CreateObject<Node>();
        d[j].net = HpccInstallStack(d[j].node);
        d[j].net->AttachHost();
        Link l = Connect(r2, d[j].node, bott, d_rd);
        d[j].addr = l.ib;
        Route(d[j].node, "0.0.0.0", "0.0.0.0", l.ia, l.b);
        Route(r2, l.ib, "255.255.255.255", l.ib, l.a);
        Ptr<QueueDisc> q = InstallQdisc(l.a, ecn, buf, k);
        n2->AttachSwitch(l.a, {2, 0, 0, Mbps(bott)});
        g_qports.push_back({Fmt("r2d%d", j + 1), q, {}});
        Route(r1, l.ib, "255.255.255.255", rr.ib, rr.a);
    }
    for (int i = 0; i < 3; i++)
        Route(r2, s[i].addr, "255.255.255.255", rr.ia, rr.b);
    if (o.parking)
        ParkingHosts(r1, r2, n2, rr, {d_rd, d_sr + d_rr});
    /* ping: 2 x propagation + an 84-byte packet's serialization per hop */
    g_base_rtt_ms = 2 * (d_sr + d_rr + d_rd).GetSeconds() * 1e3 +
                    2 * 86 * 8 * (2 / 1e9 + 1 / (o.bottleneck_mbps * 1e6)) * 1e3;
    if (o.jitter > 0)
        for (int i = 0; i < 3; i++)
        {
            double half = o.jitter * g_base_rtt_ms / 1e3 / 2;
            AddJitter(sl[i].a, o.s_delay[i].GetSeconds(), half, 1e9);
            AddJitter(sl[i].b, o.s_delay[i].GetSeconds(), half, 1e9);
        }

    static FlowServer srv[3];
    for (int j = 0; j < 2; j++)
        srv[j].Start(d[j]);
    if (o.parking)
        srv[2].Start(g_px);
}

static void
Event(double t, const char* kind, const std::string& fl)
{
    Emit("events.csv", Fmt("%g,%s,%s", t, kind, fl.c_str()));
}

/* The websearch scenario's flows: fctgen --poisson LOAD/3,100,WS_DUR from
 * each sender to d1,d2, seed SEED+1000*rep+i
 */
static void
WebSearchFlows(int rep, uint64_t seed, const Profile& pf, Host s[3], Host d[2])
{
    for (int i = 0; i < 3; i++)
    {
        uint64_t st = 0x5eed0000ULL + seed + 1000 * rep + (i + 1);
        double rate = g_dopt.bottleneck_mbps * 1e6 / 8, load = 0.5 / 3, t = 0;
        double gap = flowcdf_mean(&flowcdf_websearch) / (load * rate * 2);
        for (;;)
        {
            t += -std::log(1 - flowcdf_rng_unit(&st)) * gap;
            if (t >= pf.ws_dur)
                break;
            int dj = (int)(flowcdf_rng_next(&st) % 2);
            uint64_t size = flowcdf_sample(&flowcdf_websearch, flowcdf_rng_unit(&st));
            AddFlow(Fmt("ws%d", i + 1), s[i], d[dj], size, t, 0);
        }
    }
}

/* many: 32 long flows starting together (within spread_ms), from the three
 * senders; join (receiver-measured N): g_join - 1 long flows from t = 0 and
 * one more ("j") joining halfway, all to d1. Returns the duration.
 */
static double
ManyFlows(const std::string& scen, uint64_t st, const Profile& pf, Host s[3], Host d[2])
{
    double dur = pf.long_dur;
    int n = scen == "join" ? g_join - 1 : 32;

    for (int i = 0; i < n; i++)
    {
        double t = scen == "many" ? g_dopt.spread_ms / 1000 * flowcdf_rng_unit(&st) : 0;

        AddFlow(Fmt("m%d", i + 1), s[i % 3], d[0], ~0ULL, t, dur - t);
    }
    Event(0, "join", "all");
    if (scen == "join")
    {
        AddFlow("j", s[n % 3], d[0], ~0ULL, dur / 2, dur / 2);
        Event(dur / 2, "join", "j");
    }
    return dur;
}

/* --law_trace: law.csv as demo/lawsample writes it (host: the sender's
 * address; age_us 0, the report just used).
 */
static void
LawRow(const TcpHpcc& f)
{
    const struct hpcc_ctl& c = f.Ctl();
    std::ostringstream a;

    f.Local().Print(a);
    Emit("law.csv",
         Fmt("%s,%.4f,%s:%u,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64 ",%u,0,%u",
             a.str().c_str(), Simulator::Now().GetSeconds(), a.str().c_str(), f.LocalPort(),
             c.telemetry ? "hpcc" : "reno", c.law.w >> HPCC_W_SHIFT, c.law.wc >> HPCC_W_SHIFT,
             (c.law.u * 1000) >> HPCC_U_SHIFT, c.law.inc_stage, c.pacing_rate, c.t_us,
             c.law.nhops));
}

/* The flows of scenario @scen (demo/scenarios.sh's); returns its duration. */
static double
DumbbellFlows(const std::string& scen, int rep, uint64_t seed, const Profile& pf, Host s[3],
              Host d[2])
{
    double dur = 0;

    Emit("events.csv", "t,kind,flow");
    if (scen == "long" || scen == "smoke")
    {
        dur = scen == "smoke" ? 3 : pf.long_dur;
        for (int i = 0; i < 3; i++)
        {
            AddFlow(Fmt("f%d", i + 1), s[i], d[0], ~0ULL, 0, dur);
            Event(0, "join", Fmt("f%d", i + 1));
        }
    }
    else if (scen == "incast")
    {
        dur = pf.incast_dur;
        AddFlow("long", s[0], d[0], ~0ULL, 0, dur);
        uint64_t st = 0x5eed0000ULL + seed + 1000 * rep;
        for (int i = 0; i < 3; i++)
        {
            int n = (16 + 3 - (i + 1)) / 3;
            for (int b = 0; b < pf.incast_bursts; b++)
                for (int j = 0; j < n; j++)
                    AddFlow(Fmt("inc%d", i + 1), s[i], d[0], 65536,
                            2 + b + g_dopt.spread_ms / 1000 * flowcdf_rng_unit(&st), 0);
        }
        for (int b = 0; b < pf.incast_bursts; b++)
            Event(2 + b, "burst", "inc");
    }
    else if (scen == "stagger")
    {
        double D = dur = pf.stagger_dur;
        AddFlow("f1", s[0], d[0], ~0ULL, 0, D);
        AddFlow("f2", s[1], d[0], ~0ULL, D / 6, 2 * D / 3);
        AddFlow("f3", s[2], d[0], ~0ULL, D / 3, D / 3);
        Event(0, "join", "f1");
        Event(D / 6, "join", "f2");
        Event(D / 3, "join", "f3");
        Event(2 * D / 3, "leave", "f3");
        Event(5 * D / 6, "leave", "f2");
        Event(D, "leave", "f1");
    }
    else if (scen == "join" || scen == "many")
    {
        dur = ManyFlows(scen, 0x5eed0000ULL + seed + 1000 * rep, pf, s, d);
    }
    else if (scen == "rtt" || scen == "parking" || scen == "vscubic" || scen == "vsdctcp")
    {
        /* two long flows from s1 and s2 (rtt: s2's base RTT 5x s1's;
         * vscubic/vsdctcp: f2 runs cubic/dctcp) or the parking lot's three
         * (f1 s1->d1 over both bottlenecks, f2 s2->x over r1->r2, f3
         * y->d1 over r2->d1)
         */
        std::string cc2 = scen == "vscubic" ? "cubic" : scen == "vsdctcp" ? "dctcp" : g_cc;
        dur = pf.long_dur;
        AddFlow("f1", s[0], d[0], ~0ULL, 0, dur);
        if (scen == "parking")
        {
            AddFlow("f2", s[1], g_px, ~0ULL, 0, dur);
            AddFlow("f3", g_py, d[0], ~0ULL, 0, dur);
        }
        else
        {
            AddFlow("f2", s[1], d[0], ~0ULL, 0, dur, cc2);
        }
        Event(0, "join", "all");
    }
    else if (scen == "websearch")
    {
        dur = pf.ws_dur + pf.ws_drain;
        WebSearchFlows(rep, seed, pf, s, d);
    }
    return dur;
}

static void
BuildDumbbell(const std::string& scen, int rep, uint64_t seed, const Profile& pf)
{
    Host s[3], d[2];

    g_ecn = g_cc == "dctcp" || scen == "vsdctcp" || g_aqm == "red";
    g_srv_cc = g_ecn ? "dctcp" : g_cc;
    if (scen == "rtt")
        /* s2's base RTT 5x s1's: 2 (d + 0.28 ms) = 5 x 4.57 ms */
        g_dopt.s_delay[1] = MicroSeconds(11154);
    g_dopt.parking = scen == "parking";

    DumbbellTopology(s, d);
    g_hpcc_forge_src = s[0].addr;
    double dur = DumbbellFlows(scen, rep, seed, pf, s, d);
    /* every file this program writes is complete: its header first */
    Emit("queue.csv", "t,dev,backlog,qlen,drops,bytes,pkts,marks");
    Emit("samples.csv", "tag,id,t,bytes_acked,rtt_us,cwnd,retrans");
    if (g_hpcc_law_trace)
        Emit("law.csv", "host,t,local,mode,w,wc,u_permille,stage,rate_Bps,t_us,age_us,hops");
    Simulator::Schedule(Seconds(0), &SampleQueues, 0.005, dur + 1);
    /* join: 10 ms, to time a new flow's convergence */
    Simulator::Schedule(Seconds(0), &SampleFlows, scen == "join" ? 0.01 : 0.05, dur + 0.01);
    Simulator::Stop(Seconds(dur + 1.0));
}

/* ---- the fabric ---------------------------------------------------------------- */

/*
 * Leaf-spine: 4 leaves x 8 hosts = 32 hosts at 10 Gbit/s, 4 spines, every
 * leaf-spine link 40 Gbit/s (no oversubscription, as the paper's fabric),
 * 1 us per link: 8 us of propagation on a cross-leaf round trip. Routing:
 * D-mod-k, a deterministic ECMP: a leaf sends traffic for host h up to
 * spine h mod 4, so a flow and its probes share one path. Every switch
 * port has a 1 MB buffer (drop-tail, or RED ECN at K = 30 KB for dctcp)
 * and stamps probes.
 */
struct FabricCfg
{
    std::string cdf = "websearch";
    double load = 0.5;
    int flows = 5000;
    bool incast = false;
};

struct FabricOut
{
    double arrive_dur = 0;
};

static const int kLeaves = 4, kHostsPerLeaf = 8, kSpines = 4, kHosts = 32;

/* The leaf-spine's nodes, links, routes and flow servers; its hosts. */
static std::vector<Host>
FabricTopology()
{
    const int L = kLeaves, H = kHostsPerLeaf, S = kSpines, N = kHosts;
    const std::string hr = "10Gbps", ur = "40Gbps";
    const uint32_t buf = 1000000, k = 30000;
    Time dl = MicroSeconds(1);
    bool ecn = g_cc == "dctcp" || g_aqm == "red";
    std::vector<Host> host(N);
    std::vector<Ptr<Node>> leaf(L), spine(S);
    std::vector<Ptr<HpccNet>> lnet(L), snet(S);
    std::vector<Link> hl(N);
    std::vector<std::vector<Link>> ls(L, std::vector<Link>(S));

    for (int l = 0; l < L; l++)
    {
        leaf[l] = CreateObject<Node>();
        lnet[l] = HpccInstallStack(leaf[l]);
    }
    for (int s = 0; s < S; s++)
    {
        spine[s] = CreateObject<Node>();
        snet[s] = HpccInstallStack(spine[s]);
    }
    for (int h = 0; h < N; h++)
    {
        int l = h / H;
        host[h].node = CreateObject<Node>();
        host[h].net = HpccInstallStack(host[h].node);
        host[h].net->AttachHost();
        hl[h] = Connect(host[h].node, leaf[l], hr, dl);
        host[h].addr = hl[h].ia;
        Route(host[h].node, "0.0.0.0", "0.0.0.0", hl[h].ib, hl[h].a);
        /* the host's own qdisc: no marking, and no loss. Linux never loses
         * a packet to its own qdisc: a full qdisc fails tcp_transmit_skb(),
         * the segment stays in the write queue unsent and goes out later
         * (and TSQ keeps each socket's share small). ns-3's TCP counts a
         * packet sent once handed down, so a drop here became a real loss
         * and, at the tail of a flow, a 200 ms RTO. The data that Linux
         * would hold in the socket waits here instead: the limit is the
         * send buffers' worth, never reached.
         */
        g_nics.push_back({Fmt("h%d-nic", h), InstallQdisc(hl[h].a, false, 1u << 30, k), {}});
        Ptr<QueueDisc> q = InstallQdisc(hl[h].b, ecn, buf, k);
        lnet[l]->AttachSwitch(hl[h].b, {100u + l, 0, 0, Mbps(hr)});
        g_qports.push_back({Fmt("leaf%d-h%d", l, h), q, {}});
    }
    for (int l = 0; l < L; l++)
        for (int s = 0; s < S; s++)
        {
            ls[l][s] = Connect(leaf[l], spine[s], ur, dl);
            Ptr<QueueDisc> up = InstallQdisc(ls[l][s].a, ecn, buf, k);
            Ptr<QueueDisc> down = InstallQdisc(ls[l][s].b, ecn, buf, k);
            lnet[l]->AttachSwitch(ls[l][s].a, {100u + l, 0, 0, Mbps(ur)});
            snet[s]->AttachSwitch(ls[l][s].b, {200u + s, 0, 0, Mbps(ur)});
            g_qports.push_back({Fmt("leaf%d-up%d", l, s), up, {}});
            g_qports.push_back({Fmt("spine%d-down%d", s, l), down, {}});
        }
    for (int h = 0; h < N; h++)
    {
        int lh = h / H;
        for (int l = 0; l < L; l++)
        {
            if (l == lh)
                Route(leaf[l], host[h].addr, "255.255.255.255", host[h].addr, hl[h].b);
            else
                Route(leaf[l], host[h].addr, "255.255.255.255", ls[l][h % S].ib, ls[l][h % S].a);
        }
        for (int s = 0; s < S; s++)
            Route(spine[s], host[h].addr, "255.255.255.255", ls[lh][s].ia, ls[lh][s].b);
    }
    /* cross-leaf: 4 links each way, 1 us each; an 84-byte packet's
     * serialization at 10, 40, 40, 10 Gbit/s, both ways
     */
    g_base_rtt_ms = (8 * 1e-6 + 2 * 86 * 8 * (2 / 10e9 + 2 / 40e9)) * 1e3;

    static std::vector<FlowServer> srv(N);
    for (int h = 0; h < N; h++)
        srv[h].Start(host[h]);
    return host;
}

/* The paper's recipe scaled to 32 hosts: incasts as a Poisson process
 * worth 2% of the capacity (@rate bytes/s per host) until @arrive, each
 * 16-to-1 (half the hosts) of 500 KB flows to one random receiver; the
 * random numbers go on from *@st.
 */
static void
FabricIncasts(std::vector<Host>& host, uint64_t* st, double rate, double arrive)
{
    const int N = kHosts, fan = 16;
    const double isz = 500000;
    double igap = fan * isz / (0.02 * rate * N), ti = 0;
    int ninc = 0;

    for (;;)
    {
        ti += -std::log(1 - flowcdf_rng_unit(st)) * igap;
        if (ti >= arrive)
            break;
        int r = (int)(flowcdf_rng_next(st) % N);
        for (int j = 0, m = 0; m < fan; j++)
        {
            int s = (int)((r + 1 + j * 7) % N); /* spread over racks */
            if (s == r)
                continue;
            AddFlow(Fmt("inc%d", ninc), host[s], host[r], (uint64_t)isz, 0.001 + ti, 0);
            m++;
        }
        ninc++;
    }
}

static FabricOut
BuildFabric(const FabricCfg& fc, uint64_t seed)
{
    const int N = kHosts;
    std::vector<Host> host = FabricTopology();

    /* Poisson arrivals, each flow between a random pair of hosts, offering
     * LOAD of the hosts' total capacity (the paper's definition)
     */
    const struct flowcdf* cdf = fc.cdf == "fbhadoop" ? &flowcdf_fbhadoop : &flowcdf_websearch;
    uint64_t st = 0x5eed0000ULL + seed;
    double rate = 10e9 / 8, t = 0;
    double gap = flowcdf_mean(cdf) / (fc.load * rate * N);
    int nflows = 0;
    while (nflows < fc.flows)
    {
        t += -std::log(1 - flowcdf_rng_unit(&st)) * gap;
        int a = (int)(flowcdf_rng_next(&st) % N), b = (int)(flowcdf_rng_next(&st) % (N - 1));
        if (b >= a)
            b++;
        uint64_t size = flowcdf_sample(cdf, flowcdf_rng_unit(&st));
        AddFlow("bg", host[a], host[b], size, 0.001 + t, 0);
        nflows++;
    }
    double arrive = t;
    if (fc.incast)
        FabricIncasts(host, &st, rate, arrive);
    g_emit_queue = false;
    Simulator::Schedule(Seconds(0), &SampleQueues, 0.0001, arrive + 0.5);
    Simulator::Stop(Seconds(arrive + 0.5));
    return {arrive};
}

/* ---- the results ------------------------------------------------------------------ */

/* Every flow's row of flows.csv (its header went out before the run);
 * returns how many completed.
 */
static uint64_t
EmitFlows()
{
    uint64_t ok = 0;

    for (FlowRec* f : g_flows)
    {
        bool done = f->t_end >= 0;
        double fct = done ? f->t_end - f->start : -1;
        Ipv4Address d = f->dst.addr;
        std::ostringstream ds;
        d.Print(ds);
        ok += done;
        Emit("flows.csv",
             Fmt("%s,%d,%s,%" PRIu64 ",%.6f,%.6f,%.6f,%s", f->tag.c_str(), f->id, ds.str().c_str(),
                 f->size == ~0ULL ? (uint64_t)0 : f->size, f->start, done ? f->t_end : -1, fct,
                 done ? "ok" : "unfinished"));
    }
    return ok;
}

/* A fabric switch port's class, from its name (BuildFabric's) */
static const char*
PortClass(const std::string& name)
{
    return name.find("-h") != std::string::npos    ? "tor-down"
           : name.find("-up") != std::string::npos ? "tor-up"
                                                   : "spine-down";
}

/* Queue percentiles per port class: the raw samples are too many. */
static void
EmitQueuePercentiles()
{
    std::map<std::string, std::vector<uint32_t>> cls;
    for (QPort& p : g_qports)
    {
        std::string c = PortClass(p.name);
        cls[c].insert(cls[c].end(), p.samples.begin(), p.samples.end());
    }
    for (QPort& p : g_nics)
        cls["host-nic"].insert(cls["host-nic"].end(), p.samples.begin(), p.samples.end());
    Emit("qpct.csv", "class,n,p50,p95,p99,max");
    for (auto& c : cls)
    {
        auto& v = c.second;
        std::sort(v.begin(), v.end());
        auto pct = [&](double p) {
            size_t r = (size_t)std::ceil(p / 100 * v.size());
            return v.empty() ? 0u : v[r ? r - 1 : 0];
        };
        Emit("qpct.csv", Fmt("%s,%zu,%u,%u,%u,%u", c.first.c_str(), v.size(), pct(50),
                             pct(95), pct(99), v.empty() ? 0u : v.back()));
    }
}

/* Where packets were lost, and why (ns-3's drop reasons); returns the
 * ECN marks.
 */
static uint64_t
EmitDrops()
{
    std::map<std::string, uint64_t> drops;
    uint64_t marks = 0;
    auto count = [&](const std::string& c, QPort& p) {
        const QueueDisc::Stats& st = p.q->GetStats();
        for (const auto& r : st.nDroppedPacketsBeforeEnqueue)
            drops[c + "," + r.first] += r.second;
        for (const auto& r : st.nDroppedPacketsAfterDequeue)
            drops[c + "," + r.first] += r.second;
        marks += st.nTotalMarkedPackets;
    };
    for (QPort& p : g_qports)
        count(PortClass(p.name), p);
    for (QPort& p : g_nics)
        count("host-nic", p);
    Emit("drops.csv", "class,reason,packets");
    for (auto& d : drops)
        if (d.second)
            Emit("drops.csv", Fmt("%s,%" PRIu64, d.first.c_str(), d.second));
    return marks;
}

/* The fabric's tables beside flows.csv: queues, drops, RTOs, utilisation. */
static void
EmitFabric(double dur)
{
    EmitQueuePercentiles();
    uint64_t marks = EmitDrops();
    uint64_t rto_snd = 0, rto_flows = 0;
    for (FlowRec* f : g_flows)
    {
        rto_snd += f->rtos;
        rto_flows += f->rtos > 0;
    }
    Emit("rto.csv", "rto_sender,flows_with_rto,rto_receiver,ecn_marks");
    Emit("rto.csv", Fmt("%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, rto_snd, rto_flows,
                        g_rto_rcv, marks));
    uint64_t tx = 0;
    for (QPort& p : g_qports)
        if (p.name.find("-h") != std::string::npos)
            tx += p.q->GetStats().nTotalSentBytes;
    Emit("util.csv", "hosts,rate_bps,seconds,host_rx_bytes");
    Emit("util.csv", Fmt("32,10e9,%.6f,%" PRIu64, dur, tx));
}

/* What a run cost and counted: runs.csv, cost.csv, hpcc.csv. */
struct RunStats
{
    double dur, wall, cpu;
    uint64_t events, ok;
};

static void
EmitRun(const std::string& label, int rep, uint64_t seed, const RunStats& r)
{
    const HpccCounters& c = HpccStats();
    fprintf(g_out,
            "@@csv runs.csv@@ %s,%s,%d,%" PRIu64 ",%.3f,%d,%" PRIu64 ",%" PRIu64 ",%zu,%" PRIu64
            ",%.1f\n",
            label.c_str(), g_cc.c_str(), rep, seed + 1000 * rep, r.dur,
            g_cc == "hpcc" ? 1 : 0, c.probesSent, c.reportsUsed, g_flows.size(), r.ok, r.wall);
    fprintf(g_out,
            "@@csv cost.csv@@ %s,%s,%d,%" PRIu64 ",%.2f,%.2f,%.0f,%.6f\n",
            label.c_str(), g_cc.c_str(), rep, r.events, r.wall, r.cpu,
            r.events / std::max(r.cpu, 1e-9), g_base_rtt_ms);
    fprintf(g_out,
            "@@csv hpcc.csv@@ %s,%s,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 "\n",
            label.c_str(), g_cc.c_str(), rep, c.probesSent, c.probesLost, c.reportsAccepted,
            c.reportsUsed, c.reportsNoCapacity, c.rejected, c.telemetryTimeouts, c.stamped,
            c.overflow, c.reflected, c.delivered, c.reportsShared, c.handoffsGiven,
            c.handoffsTaken);
}

/* demo/scenarios.sh's durations */
static Profile
ProfileFor(const std::string& profile)
{
    if (profile == "long")
        return {15, 8, 18, 30, 12, 6};
    if (profile == "smoke")
        return {6, 6, 12, 10, 6, 3};
    return {8, 6, 12, 12, 8, 4};
}

/* --hpcc name=value,...: as modprobe tcp_hpcc name=value ... */
static bool
SetHpccParams(const std::string& hp)
{
    for (std::stringstream ss(hp); ss.good();)
    {
        std::string kv;
        std::getline(ss, kv, ',');
        size_t eq = kv.find('=');
        if (kv.empty())
            continue;
        if (eq == std::string::npos ||
            !HpccSetParam(kv.substr(0, eq), (uint32_t)std::stoul(kv.substr(eq + 1))))
        {
            fprintf(stderr, "hpcc-sim: unknown hpcc parameter %s\n", kv.c_str());
            return false;
        }
    }
    return true;
}

/* The dumbbell's command-line options (struct DumbOpts). */
static void
DumbbellOptions(CommandLine& cmd)
{
    cmd.AddValue("law_trace", "dumbbell, hpcc: law.csv, a row per report a flow used",
                 g_law_trace);
    cmd.AddValue("jitter", "dumbbell: delay jitter on the access links, share of the base RTT",
                 g_dopt.jitter);
    cmd.AddValue("stall_rate", "dumbbell, with jitter: stalls per second on each jittered link",
                 g_dopt.stall_rate);
    cmd.AddValue("stall_ms", "dumbbell, with jitter: a stall's longest duration, ms", g_dopt.stall_ms);
    cmd.AddValue("spread", "incast: each short flow starts up to this many ms after its burst; many: "
                 "each long flow up to this many ms after 0",
                 g_dopt.spread_ms);
    cmd.AddValue("bottleneck", "dumbbell: the bottlenecks' rate, Mbit/s", g_dopt.bottleneck_mbps);
}

/* ---- main --------------------------------------------------------------------------- */

int
main(int argc, char** argv)
{
    std::string scen = "smoke", profile = "demo", out;
    int rep = 1;
    uint64_t seed = 42;
    FabricCfg fc;
    CommandLine cmd;
    RunStats r;

    cmd.AddValue("scenario",
                 "long|incast|stagger|websearch|smoke|many|join|rtt|parking|vscubic|vsdctcp|fabric",
                 scen);
    cmd.AddValue("cc", "hpcc|dctcp|cubic|bbr", g_cc);
    cmd.AddValue("rep", "repetition (seed offset 1000 x rep, as the demo)", rep);
    cmd.AddValue("seed", "seed", seed);
    cmd.AddValue("profile", "smoke|demo|long (demo/scenarios.sh's durations)", profile);
    cmd.AddValue("cdf", "fabric: websearch|fbhadoop", fc.cdf);
    cmd.AddValue("load", "fabric: offered load of the hosts' capacity", fc.load);
    cmd.AddValue("flows", "fabric: flows", fc.flows);
    cmd.AddValue("incast", "fabric: add incasts", fc.incast);
    cmd.AddValue("out", "output file (default stdout)", out);
    cmd.AddValue("forge", "dumbbell: f1's receiver forges every response: 0 no, 1 idle "
                 "4 Pbit/s, 2 a 4 GB queue", g_hpcc_forge);
    cmd.AddValue("nobounds", "1: the report bounds off (the draft's)", g_hpcc_no_bounds);
    cmd.AddValue("join", "join: flows in all, the last joining halfway", g_join);
    cmd.AddValue("aqm", "auto (RED ECN for dctcp, else drop-tail) or red (RED ECN for all)",
                 g_aqm);
    DumbbellOptions(cmd);
    std::string hp;
    cmd.AddValue("hpcc", "hpcc's module parameters: name=value,name=value", hp);
    cmd.Parse(argc, argv);
    if (!SetHpccParams(hp))
        return 2;
    g_hpcc_law_trace = g_law_trace && scen != "fabric" ? &LawRow : nullptr;
    if (!out.empty())
        g_out = fopen(out.c_str(), "w");
    if (!g_out)
        return 1;

    g_srv_cc = g_cc;
    RngSeedManager::SetSeed(1 + (uint32_t)seed);
    RngSeedManager::SetRun(rep);
    LinuxTcpDefaults();

    std::string label = scen == "fabric"
                            ? Fmt("fabric-%s-%.0f%s", fc.cdf.c_str(), fc.load * 100,
                                  fc.incast ? "-incast" : "")
                            : scen + (g_dopt.jitter > 0 ? "-jit" : "");
    g_dir = Fmt("%s/%s/r%d", label.c_str(), g_cc.c_str(), rep);
    auto w0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock(); /* CPU time: the per-run budget is in CPU-minutes */
    double stop_pad = 1.0;
    if (scen == "fabric")
    {
        BuildFabric(fc, seed + 1000 * rep);
        stop_pad = 0.5;
    }
    else
    {
        BuildDumbbell(scen, rep, seed, ProfileFor(profile));
    }
    Emit("flows.csv", "tag,id,dst,size,start,end,fct,status");
    Simulator::Run();
    r.dur = Simulator::Now().GetSeconds() - stop_pad;
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    r.events = Simulator::GetEventCount();
    r.cpu = (double)(std::clock() - c0) / CLOCKS_PER_SEC;
    r.ok = EmitFlows();
    /* probe and response bytes on the wire: IP 20 + TCP 20 + PPP 2 */
    Emit("probe.csv", "probes_sent,responses,wire_bytes_each,compete_entered");
    Emit("probe.csv", Fmt("%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64, HpccStats().probesSent,
                          HpccStats().reflected, (unsigned)HPCC_PROBE_LEN + 42,
                          HpccStats().competeEntered));
    if (scen == "fabric")
        EmitFabric(r.dur);
    EmitRun(label, rep, seed, r);
    Simulator::Destroy();
    if (g_out != stdout)
        fclose(g_out);
    return 0;
}
