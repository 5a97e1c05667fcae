#!/usr/bin/env python3
"""gen-large-cpp.py DIR [FILES] [CLASSES] - write a synthetic C++ code base for
scripts/bench: FILES translation units, each with CLASSES class templates
that hold their data in standard containers (std::vector, std::map with
std::string keys, std::unique_ptr arrays), raw new/delete, templates
instantiated for two element types, and member functions that grow and
copy the containers (the shapes --list-sites offers as container entries).
hmrewrite walks every template instance, so this is its costly case.
The plan is written by scripts/bench with hmrewrite --list-sites."""
import os
import sys

out = sys.argv[1]
files = int(sys.argv[2]) if len(sys.argv) > 2 else 8
classes = int(sys.argv[3]) if len(sys.argv) > 3 else 40
os.makedirs(out, exist_ok=True)

HEADER = """#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace unit{f} {{
"""

CLASS = """
template <typename T> class Field{i} {{
public:
  explicit Field{i}(std::size_t n) : data_(n), halo_(new T[n + 2]) {{
    for (std::size_t k = 0; k < n; ++k)
      data_[k] = T(std::sin(double(k) * {i}.25));
  }}
  ~Field{i}() {{ delete[] halo_; }}
  Field{i}(const Field{i} &) = delete;
  Field{i} &operator=(const Field{i} &) = delete;

  void grow(std::size_t more) {{
    data_.resize(data_.size() + more);
    history_.push_back(data_.size());
  }}
  void tag(const char *name, double v) {{
    stats_[name].push_back(v);
    names_.emplace_back(name);
  }}
  T sum() const {{
    T s = T();
    for (const T &x : data_)
      s += x;
    for (const auto &kv : stats_)
      s += T(kv.second.size());
    return s;
  }}
  std::unique_ptr<double[]> scratch(std::size_t n) const {{
    auto p = std::make_unique<double[]>(n);
    for (std::size_t k = 0; k < n; ++k)
      p[k] = double(k) / double(n + {i});
    return p;
  }}

private:
  std::vector<T> data_;
  T *halo_;
  std::vector<std::size_t> history_;
  std::map<std::string, std::vector<double>> stats_;
  std::vector<std::string> names_;
}};

double run{i}(std::size_t n) {{
  Field{i}<double> a(n);
  Field{i}<float> b(n / 2 + 1);
  a.grow(n / 4);
  a.tag("warm", 1.5);
  b.tag("cold", 0.5);
  std::vector<double> copy(n);
  std::vector<int> *idx = new std::vector<int>(n);
  for (std::size_t k = 0; k < n; ++k)
    (*idx)[k] = int((k * 7 + {i}) % n);
  double *raw = static_cast<double *>(std::malloc(n * sizeof(double)));
  auto s = a.scratch(n);
  for (std::size_t k = 0; k < n; ++k) {{
    raw[k] = s[k] + copy[(*idx)[k]];
    copy[k] = raw[k] * 0.5;
  }}
  double r = a.sum() + double(b.sum()) + raw[n / 2];
  std::free(raw);
  delete idx;
  return r;
}}
"""

for f in range(files):
    with open(os.path.join(out, "unit%02d.cpp" % f), "w") as fh:
        fh.write(HEADER.format(f=f))
        for i in range(classes):
            fh.write(CLASS.format(i=i))
        fh.write("\n} // namespace unit%d\n" % f)
