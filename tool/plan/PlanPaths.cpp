//===- PlanPaths.cpp - how a generated plan names source files ------------===//
#include "PlanPaths.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace hmplace {

/// \p File's path below \p Dir ("" for `/`), or "" if it is not below it.
static std::string below(StringRef File, StringRef Dir) {
  StringRef Rel = File;
  if (!Rel.consume_front(Dir) || !Rel.consume_front("/") || Rel.empty())
    return "";
  return Rel.str();
}

static std::string withoutSlash(StringRef Dir) { return Dir.rtrim('/').str(); }

/// The deepest directory holding every path of \p Files ("" for `/`).
static std::string commonDirectory(const std::vector<StringRef> &Files) {
  if (Files.empty())
    return "";
  SmallVector<StringRef, 16> Common;
  StringRef First = sys::path::parent_path(Files.front());
  for (auto It = sys::path::begin(First); It != sys::path::end(First); ++It)
    Common.push_back(*It);
  for (StringRef F : Files) {
    StringRef Dir = sys::path::parent_path(F);
    size_t N = 0;
    for (auto It = sys::path::begin(Dir);
         It != sys::path::end(Dir) && N < Common.size() && *It == Common[N];
         ++It)
      ++N;
    Common.resize(N);
  }
  std::string Out;
  for (StringRef C : Common)
    if (C != "/")
      Out += "/" + C.str();
  return Out;
}

PlanPathNamer::PlanPathNamer(StringRef Dir,
                             const std::vector<std::string> &Files)
    : PlanDir(withoutSlash(Dir)) {
  std::vector<StringRef> Others;
  bool OneDir = true;
  for (const std::string &F : Files) {
    if (!Dir.empty() && !below(F, PlanDir).empty())
      continue;
    if (!Others.empty() &&
        sys::path::parent_path(F) != sys::path::parent_path(Others.front()))
      OneDir = false;
    Others.push_back(F);
  }
  Root = commonDirectory(Others);
  // All in one directory: their names alone (that directory is often the
  // tree's own, a flat tree, whose name a clone need not keep), unless a
  // file under the plan's directory has one of those names too: then the
  // directory tells them apart.
  bool Clash = any_of(Files, [&](const std::string &F) {
    return !is_contained(Others, StringRef(F)) &&
           any_of(Others, [&](StringRef O) {
             return sys::path::filename(O) == sys::path::filename(F);
           });
  });
  if (OneDir && !Others.empty())
    Root = withoutSlash(sys::path::parent_path(
        Clash ? sys::path::parent_path(Others.front()) : Others.front()));
}

std::string PlanPathNamer::name(StringRef File) const {
  std::string Rel = below(File, PlanDir);
  if (!Rel.empty())
    return Rel;
  if (!Root.empty() && !(Rel = below(File, Root)).empty())
    return Rel;
  StringRef Dir = sys::path::filename(sys::path::parent_path(File));
  StringRef Name = sys::path::filename(File);
  return Dir.empty() || Dir == "/" ? Name.str() : (Dir + "/" + Name).str();
}

} // namespace hmplace
