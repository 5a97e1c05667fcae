//===- Output.cpp - show, write or export hmrewrite's edits ---------------===//
//
// The diff is computed from the edits themselves rather than by a generic
// text diff: every replacement names the old lines it touches, so hunks are
// exact and the work is linear in the file size.
//
//===----------------------------------------------------------------------===//
#include "Output.h"
#include "Splice.h"
#include "plan/PlanPaths.h"
#include "plan/SourceTokens.h"

#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/YAMLTraits.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <unistd.h>

using namespace clang;
using namespace llvm;

namespace hmplace {

static std::string displayPath(StringRef Abs) {
  SmallString<256> Cwd;
  if (!sys::fs::current_path(Cwd)) {
    StringRef Rel = Abs;
    if (Rel.consume_front(Cwd) && Rel.consume_front("/"))
      return Rel.str();
  }
  return Abs.str();
}

static Expected<std::string> newContent(StringRef File,
                                        const tooling::Replacements &Reps,
                                        std::string &Old) {
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read: %s",
                             Buf.getError().message().c_str());
  Old = (*Buf)->getBuffer().str();
  if (!fits(Old, Reps))
    return createStringError(std::errc::invalid_argument,
                             "changed since it was parsed");
  return splice(Old, Reps.begin(), Reps.end());
}

/// Line starts of \p T (a final line without '\n' counts).
static std::vector<size_t> lineStarts(StringRef T) {
  std::vector<size_t> S{0};
  for (size_t I = T.find('\n'); I != StringRef::npos && I + 1 < T.size();
       I = T.find('\n', I + 1))
    S.push_back(I + 1);
  return S;
}

static unsigned lineOf(const std::vector<size_t> &Starts, size_t Off) {
  return unsigned(std::upper_bound(Starts.begin(), Starts.end(), Off) -
                  Starts.begin() - 1);
}

static void splitLines(StringRef T, SmallVectorImpl<StringRef> &Out) {
  while (!T.empty()) {
    auto [L, R] = T.split('\n');
    Out.push_back(L);
    T = R;
  }
}

static void diffFile(StringRef File, StringRef Old,
                     const tooling::Replacements &Reps, raw_ostream &OS) {
  const unsigned Ctx = 3;
  std::vector<size_t> Starts = lineStarts(Old);
  unsigned NLines = Starts.size();
  auto LineEnd = [&](unsigned L) {
    return L + 1 < NLines ? Starts[L + 1] : Old.size();
  };
  // Blocks of old lines that edits touch (edits on one line share a block).
  struct Block {
    unsigned A, B;
  };
  std::vector<Block> Blocks;
  for (const tooling::Replacement &R : Reps) {
    unsigned A = lineOf(Starts, R.getOffset());
    unsigned B =
        R.getLength() ? lineOf(Starts, R.getOffset() + R.getLength() - 1) : A;
    if (!Blocks.empty() && A <= Blocks.back().B + 1)
      Blocks.back().B = std::max(Blocks.back().B, B);
    else
      Blocks.push_back({A, B});
  }
  // Replacements are sorted by offset and blocks by line, and every
  // replacement lies inside its block: one cursor serves all blocks.
  auto NextRep = Reps.begin();
  auto NewLines = [&](const Block &Bl, SmallVectorImpl<StringRef> &Out,
                      std::string &Storage) {
    size_t Begin = Starts[Bl.A], End = LineEnd(Bl.B);
    auto First = NextRep;
    while (NextRep != Reps.end() &&
           NextRep->getOffset() + NextRep->getLength() <= End)
      ++NextRep;
    Storage = splice(Old.slice(Begin, End), First, NextRep, Begin);
    splitLines(Storage, Out);
  };
  auto OldLines = [&](unsigned A, unsigned B, SmallVectorImpl<StringRef> &Out) {
    if (A <= B)
      splitLines(Old.slice(Starts[A], LineEnd(B)), Out);
  };
  std::string P = displayPath(File);
  OS << "--- a/" << P << "\n+++ b/" << P << "\n";
  int Delta = 0;
  for (size_t H = 0; H < Blocks.size();) {
    // A hunk: blocks whose gaps are at most two contexts wide.
    size_t E = H + 1;
    while (E < Blocks.size() && Blocks[E].A <= Blocks[E - 1].B + 2 * Ctx + 1)
      ++E;
    unsigned CA = Blocks[H].A >= Ctx ? Blocks[H].A - Ctx : 0;
    unsigned CB = std::min(NLines - 1, Blocks[E - 1].B + Ctx);
    std::string Body;
    raw_string_ostream BS(Body);
    unsigned OldLen = 0, NewLen = 0, Cursor = CA;
    for (size_t I = H; I < E; ++I) {
      SmallVector<StringRef, 8> Ctxt, Minus, Plus;
      std::string Storage;
      OldLines(Cursor, Blocks[I].A - 1, Ctxt);
      if (Blocks[I].A == 0)
        Ctxt.clear();
      OldLines(Blocks[I].A, Blocks[I].B, Minus);
      NewLines(Blocks[I], Plus, Storage);
      for (StringRef L : Ctxt)
        BS << " " << L << "\n";
      for (StringRef L : Minus)
        BS << "-" << L << "\n";
      for (StringRef L : Plus)
        BS << "+" << L << "\n";
      OldLen += Ctxt.size() + Minus.size();
      NewLen += Ctxt.size() + Plus.size();
      Delta += int(Plus.size()) - int(Minus.size());
      Cursor = Blocks[I].B + 1;
    }
    SmallVector<StringRef, 8> Tail;
    if (Cursor <= CB)
      OldLines(Cursor, CB, Tail);
    for (StringRef L : Tail)
      BS << " " << L << "\n";
    OldLen += Tail.size();
    NewLen += Tail.size();
    int NewStart = int(CA + 1) + Delta - (int(NewLen) - int(OldLen));
    OS << "@@ -" << CA + 1 << "," << OldLen << " +" << NewStart << "," << NewLen
       << " @@\n"
       << Body;
    H = E;
  }
}

/// Call \p Fn(File, Old, New, Reps) for every edited file whose content
/// changes; unreadable files are reported. Returns false if any was.
template <typename Fn>
static bool forEachChangedFile(const RewriteSession &S, DiagEngine &D, Fn Visit,
                               const std::set<std::string> &Skip = {}) {
  bool OK = true;
  for (const auto &[File, Reps] : S.edits()) {
    if (Skip.count(File))
      continue;
    std::string Old;
    Expected<std::string> New = newContent(File, Reps, Old);
    if (!New) {
      D.report(File, Severity::Error, toString(New.takeError()));
      OK = false;
      continue;
    }
    if (*New != Old && !Visit(File, Old, *New, Reps))
      OK = false;
  }
  return OK;
}

bool printDiff(const RewriteSession &S, raw_ostream &OS, DiagEngine &D) {
  return forEachChangedFile(S, D,
                            [&](StringRef File, StringRef Old, StringRef,
                                const tooling::Replacements &Reps) {
                              diffFile(File, Old, Reps, OS);
                              return true;
                            });
}

/// Test hook: HMREWRITE_CRASH_AT=N kills the process (SIGKILL, as a crash or
/// an OOM killer would) at the N-th step of writing files in place: each file
/// is three steps (temp file made, temp file written, renamed over the
/// original). The test suite checks that no step leaves a file half written.
static void crashPoint() {
  static long At = [] {
    const char *E = getenv("HMREWRITE_CRASH_AT");
    return E ? atol(E) : 0;
  }();
  static long Step = 0;
  if (At > 0 && ++Step == At)
    raise(SIGKILL);
}

/// Whether \p File (its real path \p Target) may be rewritten in place: not
/// a read-only file unless \p Force. Says why not.
static bool mayRewrite(const std::string &File, const std::string &Target,
                       bool Force, DiagEngine &D) {
  sys::fs::file_status St;
  if (Force || sys::fs::status(Target, St))
    return true;
  sys::fs::perms P = St.permissions();
  if (P & sys::fs::all_write)
    return true;
  char Mode[8];
  snprintf(Mode, sizeof Mode, "%04o", unsigned(P) & 07777u);
  D.report(File, Severity::Error,
           std::string("read-only (mode ") + Mode +
               "): left as it is; --force rewrites it, keeping its mode");
  return false;
}

/// Says that \p File, of \p Links hard links, was written under its own
/// name only.
static void saySplit(const std::string &File, unsigned Links, DiagEngine &D) {
  D.report(File, Severity::Warning,
           "had " + std::to_string(Links) +
               " hard links: this name now has the rewritten text in a file "
               "of its own, and the other " +
               (Links == 2 ? std::string("name keeps")
                           : std::to_string(Links - 1) + " names keep") +
               " the text as it was");
}

bool writeInPlace(const RewriteSession &S, DiagEngine &D,
                  const std::set<std::string> &Skip,
                  std::map<std::string, std::string> *NotWritten, bool Force) {
  std::string Why;
  auto WriteOne = [&](const std::string &File, StringRef New) {
    // Write beside the file, then rename over it: readers and a crash see
    // either the old or the new content, never a mix. A symbolic link
    // (a source shared between mini-apps) is written through: the real
    // file changes and the link stays a link.
    SmallString<256> Real;
    std::string Target = File;
    if (!sys::fs::real_path(File, Real))
      Target = Real.str().str();
    Why = "left as before: it could not be written";
    if (!mayRewrite(File, Target, Force, D)) {
      Why = "left as before: it is read-only";
      return false;
    }
    sys::fs::file_status Before;
    unsigned Links =
        sys::fs::status(Target, Before) ? 1 : Before.getLinkCount();
    SmallString<256> Tmp;
    int FD;
    std::string Model = Target + ".hmrewrite-%%%%%%";
    if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Tmp)) {
      D.report(File, Severity::Error, "cannot write: " + EC.message());
      return false;
    }
    crashPoint();
    {
      raw_fd_ostream Out(FD, /*shouldClose=*/true);
      Out << New.substr(0, New.size() / 2);
      Out.flush();
      crashPoint();
      Out << New.substr(New.size() / 2);
      Out.close();
      if (Out.has_error()) {
        D.report(File, Severity::Error,
                 "cannot write: " + Out.error().message());
        Out.clear_error();
        sys::fs::remove(Tmp);
        return false;
      }
    }
    if (auto Perm = sys::fs::getPermissions(Target))
      sys::fs::setPermissions(Tmp, *Perm);
    // Ownership too, where we may (root rewriting a user's tree).
    sys::fs::file_status St;
    if (!sys::fs::status(Target, St) &&
        (St.getUser() != ::geteuid() || St.getGroup() != ::getegid()))
      (void)::chown(Tmp.c_str(), St.getUser(), St.getGroup());
    if (std::error_code EC = sys::fs::rename(Tmp, Target)) {
      D.report(File, Severity::Error, "cannot replace: " + EC.message());
      sys::fs::remove(Tmp);
      return false;
    }
    crashPoint();
    if (Links > 1)
      saySplit(File, Links, D);
    return true;
  };
  return forEachChangedFile(
      S, D,
      [&](const std::string &File, StringRef, StringRef New,
          const tooling::Replacements &) {
        if (WriteOne(File, New))
          return true;
        if (NotWritten)
          (*NotWritten)[File] = Why;
        return false;
      },
      Skip);
}

bool exportFixes(const RewriteSession &S, StringRef Dir, DiagEngine &D,
                 const std::set<std::string> &Skip) {
  if (std::error_code EC = sys::fs::create_directories(Dir)) {
    D.report(Dir, Severity::Error, "cannot create: " + EC.message());
    return false;
  }
  bool OK = true;
  for (const auto &[File, Reps] : S.edits()) {
    if (Skip.count(File))
      continue;
    tooling::TranslationUnitDiagnostics TUD;
    TUD.MainSourceFile = File;
    tooling::DiagnosticMessage Msg("hmrewrite: place allocation sites");
    Msg.FilePath = File;
    Msg.FileOffset = Reps.empty() ? 0 : Reps.begin()->getOffset();
    Msg.Fix[File] = Reps;
    TUD.Diagnostics.emplace_back(
        "hmrewrite", Msg, SmallVector<tooling::DiagnosticMessage, 1>(),
        tooling::Diagnostic::Warning, sys::path::parent_path(File));
    // One file per source, named so that two a.c in different directories
    // do not collide.
    SmallString<256> Out(Dir);
    std::string Hash = toHex(SHA1::hash(arrayRefFromStringRef(File)));
    sys::path::append(Out, sys::path::filename(File) + "-" +
                               Hash.substr(0, 12) + ".yaml");
    std::error_code EC;
    raw_fd_ostream OS(Out, EC, sys::fs::OF_Text);
    if (EC) {
      D.report(Out, Severity::Error, "cannot write: " + EC.message());
      OK = false;
      continue;
    }
    yaml::Output Y(OS);
    Y << TUD;
  }
  return OK;
}

/// The listing's paths are a plan's (tool/plan/PlanPaths.h): relative to
/// the plan's directory, or to the files' common directory, so that the
/// listing applies in any checkout and from any build directory.
static PlanPathNamer listingNames(const RewriteSession &S, StringRef PlanDir) {
  std::vector<std::string> Files;
  for (const CallRecord *C : S.allocationSites())
    Files.push_back(C->Key.File);
  for (const CallRecord *C : S.containerSites())
    Files.push_back(C->Key.File);
  for (const CallRecord *C : S.callerSites())
    Files.push_back(C->Key.File);
  llvm::sort(Files);
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  return PlanPathNamer(PlanDir, Files);
}

/// The container calls --list-sites lists as entries; the others are
/// comments in \p OS: one a call the rewrite cannot note, one a file not
/// rewritten (a header not selected, a macro of another package expanded
/// there), with its count of calls. System headers are left out.
static std::vector<const CallRecord *>
listedContainers(const RewriteSession &S, const PlanPathNamer &Names,
                 raw_ostream &OS) {
  std::vector<const CallRecord *> Containers;
  std::map<std::string, unsigned> NotSelected;
  for (const CallRecord *C : S.containerSites()) {
    if (C->Edit == CallRecord::InSystemHeader)
      continue;
    if (C->Edit == CallRecord::InOtherFile) {
      ++NotSelected[C->Key.File];
      continue;
    }
    if (C->Note->NoteProblem.empty()) {
      Containers.push_back(C);
      continue;
    }
    OS << "# not listed: [std::allocator, " << Names.name(C->Key.File) << ":"
       << C->Key.Line << ":" << C->Key.Column << "] " << C->Note->ContainerOp
       << (C->Enclosing.empty() ? "" : " in " + C->Enclosing)
       << ": the rewrite cannot note the call (" << C->Note->NoteProblem
       << "); HmPlace.so places such an entry\n";
  }
  for (const auto &[File, N] : NotSelected)
    OS << "# not listed: " << N << " container call" << (N == 1 ? "" : "s")
       << " in " << Names.name(File)
       << ", a file not rewritten (select it with --header-filter)\n";
  return Containers;
}

void printSiteList(const RewriteSession &S, StringRef Kind, unsigned Depth,
                   StringRef PlanDir, raw_ostream &OS) {
  PlanPathNamer Names = listingNames(S, PlanDir);
  auto frameText = [&](const SourcePos &P) {
    return Names.name(P.File) + ":" + std::to_string(P.Line) + ":" +
           std::to_string(P.Column);
  };
  // Each frame's call by its token, which the front ends check the call at
  // the key against (a reformat or an edit moves calls, not the plan).
  SourceTokenFiles Sources;
  std::map<std::string, std::string> Tokens;
  auto addTokens = [&](ArrayRef<const SourcePos *> Frames) {
    for (const SourcePos *F : Frames)
      if (std::optional<TokenId> Id = Sources.at(F->File, F->Line, F->Column))
        Tokens.try_emplace(frameText(*F), tokenText(*Id));
  };
  // A listing with files missing must not pass for the whole program: it
  // says so at the top (and hmrewrite exits non-zero).
  if (!S.failedFiles().empty()) {
    OS << "# INCOMPLETE: these files did not compile and are not listed:\n";
    for (const std::string &F : S.failedFiles())
      OS << "#   " << displayPath(F) << "\n";
  }
  OS << "version: 1\n";
  // What a plan can use is listed: sites, sites in macro bodies (which
  // only HmPlace.so places: marked so in their note), the calls that make
  // standard containers allocate (container entries, which both front ends
  // place). What this command line cannot name, and a container call the
  // rewrite cannot note, is a comment, with the reason. System headers are
  // left out.
  std::vector<const CallRecord *> Sites, Left;
  for (const CallRecord *C : S.allocationSites()) {
    if (C->Edit == CallRecord::InSystemHeader)
      continue;
    bool Usable =
        C->NotPlaceable.empty() &&
        (C->Edit == CallRecord::Editable || C->Edit == CallRecord::InMacroBody);
    (Usable ? Sites : Left).push_back(C);
  }
  for (const CallRecord *C : Left) {
    OS << "# not listed: " << frameText(C->Key) << " " << C->Fn->Name << ": ";
    if (!C->NotPlaceable.empty())
      OS << C->NotPlaceable;
    else
      OS << "in a file not rewritten (select it with --header-filter)";
    OS << "\n";
  }
  std::vector<const CallRecord *> Containers = listedContainers(S, Names, OS);
  if (Sites.empty() && Containers.empty()) {
    OS << "sites: []\n";
    return;
  }
  // Callers by the function they call, in file order.
  std::map<std::string, std::vector<const CallRecord *>> CallersOf;
  if (Depth > 1)
    for (const CallRecord *C : S.callerSites())
      if (!C->Note->Callee.empty())
        CallersOf[C->Note->Callee].push_back(C);
  for (auto &[Name, V] : CallersOf)
    llvm::sort(V, [](const CallRecord *A, const CallRecord *B) {
      return std::tie(A->Key.File, A->Key.Line, A->Key.Column) <
             std::tie(B->Key.File, B->Key.Line, B->Key.Column);
    });
  OS << "sites:\n";
  std::vector<const CallRecord *> Chain;
  for (const CallRecord *C : Sites) {
    OS << "  - site: " << frameText(C->Key) << "\n    kind: " << Kind
       << "\n    note: \"" << C->Fn->Name;
    if (!C->Enclosing.empty())
      OS << " in " << C->Enclosing;
    if (C->Edit == CallRecord::InMacroBody)
      OS << ", in the body of macro " << C->Macro
         << " (HmPlace.so only: hmrewrite cannot edit a body every use "
            "shares)";
    else if (!C->Macro.empty())
      OS << ", through macro " << C->Macro;
    if (C->AlreadyPlaced)
      OS << ", already rewritten";
    OS << "\"\n";
    addTokens({&C->Key});
    // Every chain of callers up to Depth frames, depth first; a chain ends
    // where its outermost function has no caller in the processed files.
    std::function<void(const std::string &)> Walk = [&](const std::string &Fn) {
      auto It = CallersOf.find(Fn);
      if (Fn.empty() || Chain.size() + 1 >= Depth || It == CallersOf.end())
        return;
      for (const CallRecord *Caller : It->second) {
        Chain.push_back(Caller);
        OS << "  - stack: [" << frameText(C->Key);
        std::vector<const SourcePos *> Keys = {&C->Key};
        for (const CallRecord *F : Chain) {
          OS << ", " << frameText(F->Key);
          Keys.push_back(&F->Key);
        }
        OS << "]\n    kind: " << Kind << "\n    note: \"" << C->Fn->Name
           << " in " << C->Enclosing;
        for (const CallRecord *F : Chain)
          OS << " < " << (F->Enclosing.empty() ? "?" : F->Enclosing);
        OS << "\"\n";
        addTokens(Keys);
        Walk(Caller->Enclosing);
        Chain.pop_back();
      }
    };
    Walk(C->Enclosing);
  }
  for (const CallRecord *C : Containers)
    OS << "  - stack: [std::allocator, " << frameText(C->Key)
       << "]\n    kind: " << Kind << "\n    note: \"" << C->Note->ContainerOp
       << (C->Enclosing.empty() ? "" : " in " + C->Enclosing)
       << ": the container's buffers (a rewritten program links "
          "-lhmplace-cxx)\"\n";
  if (!Tokens.empty())
    OS << "tokens:\n";
  for (const auto &[Frame, Token] : Tokens)
    OS << "  \"" << Frame << "\": " << Token << "\n";
}

} // namespace hmplace
