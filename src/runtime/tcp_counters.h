// Measured network bytes of this process: the sum over its open TCP sockets of the kernel's
// per-connection counters (TCP_INFO tcpi_bytes_acked: payload bytes the peers acknowledged, and
// tcpi_bytes_received): payload bytes on the wire, whichever system calls moved them, without
// retransmissions. Acknowledgements trail the sends a little, so a single interval can be off by
// a segment or two; sums over many intervals are exact. Sockets closed since the last reading
// drop out of the sum, so compare readings taken while the same connections are open. Torch-free.
#ifndef JIGSAW_RUNTIME_TCP_COUNTERS_H_
#define JIGSAW_RUNTIME_TCP_COUNTERS_H_

namespace jigsaw {

struct TcpByteCounters {
  double sent = 0;
  double received = 0;
};

TcpByteCounters ReadTcpByteCounters();

}  // namespace jigsaw

#endif  // JIGSAW_RUNTIME_TCP_COUNTERS_H_
