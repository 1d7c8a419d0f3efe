// engine/mst/summary_file.cpp: the cluster summary file format (engine/mst/summary_file.h).
#include "engine/mst/summary_file.h"

#include <vector>

namespace terrazo {

void write_cluster_summary(SequentialWriter& out, const ClusterSummary& s) {
  const std::uint64_t header[7] = {s.cx,
                                   s.cy,
                                   s.edges.size(),
                                   s.ring.top.size(),
                                   s.ring.bottom.size(),
                                   s.ring.left.size(),
                                   s.ring.right.size()};
  out.write(header, sizeof header);
  out.write(s.edges.data(), s.edges.size() * sizeof(SummaryEdge));
  out.write(s.ring.top.data(), s.ring.top.size() * sizeof(double));
  out.write(s.ring.bottom.data(), s.ring.bottom.size() * sizeof(double));
  out.write(s.ring.left.data(), s.ring.left.size() * sizeof(double));
  out.write(s.ring.right.data(), s.ring.right.size() * sizeof(double));
}

ClusterSummary read_cluster_summary(SequentialReader& in, std::uint32_t level) {
  std::uint64_t header[7];
  in.read(header, sizeof header);
  ClusterSummary s;
  s.level = level;
  s.cx = header[0];
  s.cy = header[1];
  s.edges.resize(header[2]);
  in.read(s.edges.data(), header[2] * sizeof(SummaryEdge));
  std::vector<double>* parts[4] = {&s.ring.top, &s.ring.bottom, &s.ring.left, &s.ring.right};
  for (int i = 0; i < 4; ++i) {
    parts[i]->resize(header[3 + i]);
    in.read(parts[i]->data(), header[3 + i] * sizeof(double));
  }
  return s;
}

}  // namespace terrazo
