// grid.cpp - C++ containers for the advisor: vectors built in main and in
// a template's member initialiser, a make_unique array, and a map whose
// buckets and nodes come from one user call.
#include <memory>
#include <unordered_map>
#include <vector>

template <typename T> struct Field {
  std::vector<T> data;
  explicit Field(size_t n) : data(n, T(1)) {}
  T sum(int passes) const {
    T s = 0;
    for (int p = 0; p < passes; ++p)
      for (T v : data)
        s += v;
    return s;
  }
};

__attribute__((noinline)) static double copy(double *to,
                                             const std::vector<double> &from,
                                             int passes) {
  double s = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < from.size(); ++i)
      s += (to[i] = from[i]);
  return s;
}

int main() {
  size_t n = 1 << 18;
  Field<double> hot(n), cold(n);
  std::vector<double> work(n, 2.0);
  auto scratch = std::make_unique<double[]>(n);
  double s = hot.sum(6) + cold.sum(1) + copy(scratch.get(), work, 3);
  std::unordered_map<long, long> counts;
  for (long i = 0; i < 5000; ++i)
    counts[i * 7919] += 1;
  return s == 13.0 * n && counts.size() == 5000 ? 0 : 1;
}
