//===- BuildRecord.cpp - what each compile matched, summarised for a build ===//
//
// The record format is line-oriented text, so that a user can read it:
//   hmplace-record 1
//   plan <hex hash>
//   module <path>
//   file <path>        (one per source file)
//   matched <index>    (one per plan entry applied: placed or kept)
//   missed <index> <why>  (one per entry that matched a call but placed
//                          nothing, and why)
//   unmatched <index> <why>  (one per entry naming the module's file that
//                             matched none of its calls, and why)
//
//===----------------------------------------------------------------------===//
#include "plan/BuildRecord.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <memory>

using namespace llvm;

namespace hmplace {

std::string recordDir(StringRef PlanPath) {
  SmallString<256> P(PlanPath);
  sys::fs::make_absolute(P);
  return (P + ".records").str();
}

std::string writeRecord(StringRef PlanPath, const BuildRecord &R) {
  std::string Dir = recordDir(PlanPath);
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return "cannot create " + Dir + ": " + EC.message();
  // One record per module source: its name is a hash of the source path.
  SmallString<256> Final(Dir);
  sys::path::append(Final, utohexstr(xxh3_64bits(R.Module), true) + ".rec");
  int FD;
  SmallString<256> Tmp;
  if (std::error_code EC =
          sys::fs::createUniqueFile(Final + ".%%%%%%.tmp", FD, Tmp))
    return "cannot write in " + Dir + ": " + EC.message();
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << "hmplace-record 1\nplan " << utohexstr(R.PlanHash, true)
       << "\nmodule " << R.Module << "\n";
    for (const std::string &F : R.Files)
      OS << "file " << F << "\n";
    for (unsigned I : R.Matched)
      OS << "matched " << I << "\n";
    for (const auto &[Key, Reasons] :
         {std::pair("missed", &R.Missed), std::pair("unmatched", &R.Unmatched)})
      for (const auto &[I, Why] : *Reasons) {
        std::string OneLine = Why;
        std::replace(OneLine.begin(), OneLine.end(), '\n', ' ');
        OS << Key << " " << I << " " << OneLine << "\n";
      }
    if (OS.has_error()) {
      OS.clear_error();
      sys::fs::remove(Tmp);
      return "cannot write " + Tmp.str().str();
    }
  }
  if (std::error_code EC = sys::fs::rename(Tmp, Final)) {
    sys::fs::remove(Tmp);
    return "cannot rename " + Tmp.str().str() + ": " + EC.message();
  }
  return "";
}

static bool readRecord(StringRef Path, BuildRecord &R) {
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return false;
  SmallVector<StringRef, 64> Lines;
  (*Buf)->getBuffer().split(Lines, '\n', -1, false);
  if (Lines.empty() || Lines[0] != "hmplace-record 1")
    return false;
  for (StringRef L : ArrayRef(Lines).drop_front()) {
    auto [Key, Val] = L.split(' ');
    unsigned N;
    if (Key == "plan") {
      if (Val.getAsInteger(16, R.PlanHash))
        return false;
    } else if (Key == "module") {
      R.Module = Val.str();
    } else if (Key == "file") {
      R.Files.push_back(Val.str());
    } else if (Key == "matched" && !Val.getAsInteger(10, N)) {
      R.Matched.insert(N);
    } else if (Key == "missed" || Key == "unmatched") {
      auto [Index, Why] = Val.split(' ');
      if (!Index.getAsInteger(10, N))
        (Key == "missed" ? R.Missed : R.Unmatched).try_emplace(N, Why.str());
    }
  }
  return true;
}

/// Why \p PlanPath names none of the built files that have its file name
/// (a path written in a tree of another name, or a directory that moved),
/// and the path that would name them; "" when the build has no such file.
static std::string namesElsewhere(const FileSet &Built, StringRef PlanPath,
                                  const Plan &P) {
  std::vector<std::string> Same = Built.sameName(PlanPath);
  if (Same.empty())
    return "";
  std::string Why = "; the build compiled ";
  for (size_t I = 0; I < Same.size() && I < 3; ++I)
    Why += (I ? ", " : "") + Same[I];
  if (Same.size() > 3)
    Why += " and " + std::to_string(Same.size() - 3) + " more";
  Why += ", which it does not name (a relative path is resolved against the "
         "plan's directory " +
         (P.PlanDir.empty() ? std::string(".") : P.PlanDir) +
         ", else it must be the file path's last components)";
  if (Same.size() == 1)
    Why += ": write '" + sharedTail(PlanPath, Same[0], P.IgnoreCase) + "'";
  return Why;
}

namespace {
struct ReadRecord {
  BuildRecord R;
  sys::TimePoint<> When; ///< when it was written
};
} // namespace

/// The records of \p Dir for the plan whose hash is \p Hash; \p Other
/// counts those of other versions of it.
static std::vector<ReadRecord> readRecords(StringRef Dir, uint64_t Hash,
                                           unsigned &Other) {
  std::vector<ReadRecord> Rs;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!StringRef(It->path()).ends_with(".rec"))
      continue;
    ReadRecord X;
    sys::fs::file_status St;
    if (!readRecord(It->path(), X.R) || sys::fs::status(It->path(), St))
      continue;
    if (X.R.PlanHash != Hash) {
      ++Other; // built with an earlier version of the plan
      continue;
    }
    X.When = St.getLastModificationTime();
    Rs.push_back(std::move(X));
  }
  return Rs;
}

/// The roots of the build trees the records were compiled in: where two
/// records' modules have one file name at different paths, the directories
/// above the trailing components the two share (`/x/a` and `/x/b` for
/// `/x/a/src/p.c` and `/x/b/src/p.c`). None: one tree.
static std::vector<std::string> treeRoots(const std::vector<ReadRecord> &Rs,
                                          bool IgnoreCase) {
  std::map<std::string, std::set<std::string>> ByName;
  for (const ReadRecord &X : Rs)
    ByName[sys::path::filename(X.R.Module).str()].insert(X.R.Module);
  std::set<std::string> Roots;
  for (const auto &[Name, Modules] : ByName) {
    if (Modules.size() < 2)
      continue;
    const std::string &First = *Modules.begin();
    for (const std::string &M : Modules) {
      if (M == First)
        continue;
      size_t Tail = sharedTail(First, M, IgnoreCase).size();
      for (const std::string *Path : {&First, &M})
        if (Path->size() > Tail + 1)
          Roots.insert(Path->substr(0, Path->size() - Tail - 1));
    }
  }
  return {Roots.begin(), Roots.end()};
}

/// The root of \p Roots that \p Path is or is under (the deepest), or "".
static std::string treeOf(StringRef Path, ArrayRef<std::string> Roots) {
  std::string Best;
  for (const std::string &Root : Roots)
    if ((Path == Root || Path.starts_with(Root + "/")) &&
        Root.size() > Best.size())
      Best = Root;
  return Best;
}

/// The records a summary counts: where the plan was built in several trees
/// (a clone, a copy under another name), those of one: \p Tree if given,
/// else the one built last; and the files no other tree built. Says so.
static std::vector<const BuildRecord *>
thisTree(const std::vector<ReadRecord> &Rs, const Plan &P, StringRef PlanPath,
         StringRef Tree, DiagEngine &D) {
  std::vector<const BuildRecord *> All;
  for (const ReadRecord &X : Rs)
    All.push_back(&X.R);
  std::vector<std::string> Roots = treeRoots(Rs, P.IgnoreCase);
  std::string Want;
  if (!Tree.empty()) {
    SmallString<256> Abs(Tree);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    Want = treeOf(Abs, Roots);
    if (Want.empty())
      D.report(PlanPath, Severity::Warning,
               "--tree " + Tree.str() + " is none of the build trees " +
                   (Roots.empty() ? std::string("(the records hold one)")
                                  : join(Roots, ", ")) +
                   ": every record is counted");
  } else if (!Roots.empty()) {
    const ReadRecord *Last = nullptr;
    for (const ReadRecord &X : Rs)
      if (!treeOf(X.R.Module, Roots).empty() && (!Last || X.When > Last->When))
        Last = &X;
    Want = treeOf(Last->R.Module, Roots);
  }
  if (Want.empty())
    return All;
  std::vector<const BuildRecord *> Kept;
  for (const BuildRecord *R : All)
    if (std::string T = treeOf(R->Module, Roots); T.empty() || T == Want)
      Kept.push_back(R);
  D.report(PlanPath, Severity::Note,
           "the plan was built in " + std::to_string(Roots.size()) +
               " trees (" + join(Roots, ", ") + "): this summary counts " +
               std::to_string(Kept.size()) + " of the " +
               std::to_string(All.size()) + " modules, those of " + Want +
               (Tree.empty() ? " (built last)" : "") +
               " and of no other tree; --tree DIR for another");
  return Kept;
}

unsigned summarizeBuild(const Plan &P, StringRef PlanPath, DiagEngine &D,
                        raw_ostream &OS, StringRef Tree) {
  uint64_t Hash = P.ContentHash;
  std::string Dir = recordDir(PlanPath);
  std::set<unsigned> Matched;
  std::map<unsigned, std::string> Missed; // the first module's reason
  std::map<unsigned, std::string> Unmatched;
  FileSet Built(P.IgnoreCase);
  unsigned Records = 0, Other = 0;
  std::vector<ReadRecord> Rs = readRecords(Dir, Hash, Other);
  std::vector<const BuildRecord *> Kept = thisTree(Rs, P, PlanPath, Tree, D);
  for (const BuildRecord *R : Kept) {
    ++Records;
    Matched.insert(R->Matched.begin(), R->Matched.end());
    Missed.insert(R->Missed.begin(), R->Missed.end());
    Unmatched.insert(R->Unmatched.begin(), R->Unmatched.end());
    for (const std::string &F : R->Files)
      Built.add(F);
  }
  if (Records == 0) {
    D.report(P.Path, Severity::Warning,
             "no module was compiled with this plan" +
                 Twine(Other ? " (records of " + Twine(Other) +
                                   " modules are from another version of it)"
                             : "") +
                 "; build with HmPlace.so and HMPLACE_PLAN first");
    return 0;
  }
  unsigned Stale = 0, Unexamined = 0, NotPlaced = 0, HeapNoted = 0;
  std::unique_ptr<SiteMatcher> Matcher; // made for the first unmatched entry
  for (size_t I = 0; I < P.Entries.size(); ++I) {
    if (Matched.count(I))
      continue;
    const PlanEntry &E = P.Entries[I];
    if (auto It = Missed.find(unsigned(I)); It != Missed.end()) {
      ++NotPlaced;
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() +
                   "' matched a call but placed nothing: " + It->second);
      continue;
    }
    if (E.isFileSet()) {
      ++Stale;
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() +
                   "' matched no allocation call in the whole build");
      continue;
    }
    const Frame &F = E.Frames.front();
    bool Seen = F.namesFile() && Built.namedBy(F.File, P.PlanDir);
    if (!Matcher)
      Matcher = std::make_unique<SiteMatcher>(P);
    if (const EntryShape &S = Matcher->shape(E);
        S.How == EntryShape::Unusable && Matcher->keepsHeapEitherWay(E)) {
      ++HeapNoted; // as hmrewrite says it
      D.report(E.KeyLoc, Severity::Note, heapUnusableText(E, S));
      continue;
    }
    if ((Seen || F.Kind == Frame::Form::NoDebug) &&
        Matcher->keepsHeapEitherWay(E)) {
      ++HeapNoted; // as hmrewrite says it
      auto It = Unmatched.find(unsigned(I));
      D.report(E.KeyLoc, Severity::Note,
               "plan entry '" + E.key() + "' (" + E.To.Spelling +
                   ": the ordinary heap) matched no allocation call" +
                   (It != Unmatched.end() ? " (" + It->second + ")" : "") +
                   ": it places nothing either way, its call stays on the "
                   "ordinary heap");
      continue;
    }
    if (F.Kind == Frame::Form::NoDebug) {
      ++Stale; // a compile that has the function with debug info says why
      auto It = Unmatched.find(unsigned(I));
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() +
                   "' matched nothing in the whole build: " +
                   (It != Unmatched.end()
                        ? It->second
                        : "no allocation call in a function " + F.Function +
                              " without debug info was compiled with this "
                              "plan"));
      continue;
    }
    if (auto It = Unmatched.find(unsigned(I)); Seen && It != Unmatched.end()) {
      ++Stale; // the compile of its file said why
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() +
                   "' matched nothing in the whole build: " + It->second);
    } else if (Seen) {
      ++Stale;
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() +
                   "' matched nothing in the whole build (stale plan?)");
    } else {
      ++Unexamined;
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() +
                   "' placed nothing: no module of the build was compiled "
                   "from " +
                   (F.namesFile() ? F.File + namesElsewhere(Built, F.File, P)
                                  : F.str()));
    }
  }
  OS << "hmplan: " << Records << " modules compiled with this plan";
  if (Other)
    OS << " (" << Other << " records of other plan versions ignored)";
  OS << "; " << Matched.size() << " of " << P.Entries.size()
     << " entries matched";
  if (NotPlaced)
    OS << ", " << NotPlaced << " matched a call but placed nothing";
  OS << ", " << Stale << " stale, " << Unexamined << " for files not built";
  if (HeapNoted)
    OS << "; " << HeapNoted
       << " of the ordinary heap placed nothing (see the notes; their calls "
          "stay on the ordinary heap either way)";
  OS << "\n";
  return Records;
}

} // namespace hmplace
