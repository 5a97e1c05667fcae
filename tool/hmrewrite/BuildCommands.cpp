//===- BuildCommands.cpp - compile commands as real builds write them -----===//
//
// Why absolute file names: ClangTool shares one FileManager between the
// translation units it parses, and the FileManager caches lookups by the
// path string. `./util.h` included from `./a.c` in directory A and from
// `./b.c` in directory B is then one cached entry, and B's include fails or,
// worse, finds A's header. With the main file named absolutely, quoted
// includes are looked up beside it by an absolute path. (hmrewrite also runs
// each file with a FileManager of its own, for `-I` paths relative to each
// command's directory.)
//
// Why ask the MPI wrapper: `mpicc` adds the MPI include directories itself;
// a compile database written by bear over an MPI Makefile names `mpicc`, and
// clang parsing that command finds no `mpi.h`. The wrapper is run once per
// name with its query option; its answer is cached for the session.
//
//===----------------------------------------------------------------------===//
#include "BuildCommands.h"
#include "plan/SiteKey.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <set>

using namespace llvm;
using clang::tooling::CompileCommand;

namespace hmplace {

bool isMPIWrapper(StringRef Compiler) {
  static const Regex Names("^mpi(cc|cxx|c\\+\\+|CC|f77|f90|f08|fort|icc|icpc|"
                           "icx|icpx|ifort|ifx)([-.][A-Za-z0-9_.-]*)?$");
  return Names.match(sys::path::filename(Compiler));
}

/// Run \p Program with \p Args; its standard output, or none.
static std::optional<std::string> runQuery(StringRef Program,
                                           ArrayRef<StringRef> Args) {
  SmallString<128> Out;
  int FD;
  if (sys::fs::createTemporaryFile("hmrewrite-mpi", "txt", FD, Out))
    return std::nullopt;
  sys::Process::SafelyCloseFileDescriptor(FD);
  std::string OutPath = Out.str().str();
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(OutPath),
                                          StringRef("")};
  SmallVector<StringRef, 4> Argv = {Program};
  Argv.append(Args.begin(), Args.end());
  int RC = sys::ExecuteAndWait(Program, Argv, std::nullopt, Redirects,
                               /*SecondsToWait=*/60);
  auto Buf = MemoryBuffer::getFile(OutPath);
  sys::fs::remove(OutPath);
  if (RC != 0 || !Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().trim().str();
}

/// The flags of a wrapper's command line that matter to a compile: include
/// paths, defines, -pthread, language options; not link flags.
static void keepCompileFlags(ArrayRef<StringRef> Tokens,
                             std::vector<std::string> &Out) {
  for (size_t I = 0; I < Tokens.size(); ++I) {
    StringRef T = Tokens[I];
    if (T == "-I" || T == "-D" || T == "-isystem" || T == "-include" ||
        T == "-U") {
      if (I + 1 < Tokens.size()) {
        Out.push_back(T.str());
        Out.push_back(Tokens[++I].str());
      }
      continue;
    }
    if (T.starts_with("-I") || T.starts_with("-D") || T.starts_with("-U") ||
        T.starts_with("-isystem") || T == "-pthread" || T.starts_with("-std="))
      Out.push_back(T.str());
  }
}

std::optional<WrapperExpansion> askMPIWrapper(StringRef Compiler,
                                              std::string &Err) {
  ErrorOr<std::string> Path = Compiler.contains('/')
                                  ? ErrorOr<std::string>(Compiler.str())
                                  : sys::findProgramByName(Compiler);
  if (!Path || !sys::fs::can_execute(*Path)) {
    Err = "it is not installed here (not found in PATH)";
    return std::nullopt;
  }
  WrapperExpansion W;
  // Open MPI.
  if (auto Cmd = runQuery(*Path, {"--showme:command"})) {
    auto Flags = runQuery(*Path, {"--showme:compile"});
    SmallVector<StringRef, 16> CmdTokens, FlagTokens;
    StringRef(*Cmd).split(CmdTokens, ' ', -1, false);
    if (Flags && !CmdTokens.empty()) {
      W.Compiler = CmdTokens[0].str();
      keepCompileFlags(ArrayRef(CmdTokens).drop_front(), W.Flags);
      StringRef(*Flags).split(FlagTokens, ' ', -1, false);
      keepCompileFlags(FlagTokens, W.Flags);
      return W;
    }
  }
  // MPICH, Intel MPI: the whole command it would run.
  if (auto Show = runQuery(*Path, {"-show"})) {
    SmallVector<StringRef, 32> Tokens;
    StringRef(*Show).split(Tokens, ' ', -1, false);
    if (!Tokens.empty()) {
      W.Compiler = Tokens[0].str();
      keepCompileFlags(ArrayRef(Tokens).drop_front(), W.Flags);
      return W;
    }
  }
  Err = "it answered neither --showme:compile (Open MPI) nor -show (MPICH)";
  return std::nullopt;
}

CompileCommand BuildCommands::adjust(CompileCommand C) const {
  if (!C.Filename.empty() && !sys::path::is_absolute(C.Filename)) {
    std::string Abs = normalizePath(C.Filename, C.Directory);
    for (std::string &Arg : C.CommandLine)
      if (Arg == C.Filename)
        Arg = Abs;
    C.Filename = std::move(Abs);
  }
  if (C.CommandLine.empty() || !isMPIWrapper(C.CommandLine[0]))
    return C;
  const std::string &Name = C.CommandLine[0];
  auto It = Wrappers.find(Name);
  if (It == Wrappers.end()) {
    std::string Err;
    It = Wrappers.emplace(Name, askMPIWrapper(Name, Err)).first;
    if (!It->second)
      D.report(C.Filename, Severity::Warning,
               "cannot expand the MPI compiler wrapper '" + Name +
                   "' of this file's compile command: " + Err +
                   "; the files it compiles are parsed without MPI's include "
                   "paths");
  }
  if (!It->second)
    return C;
  std::vector<std::string> Line = {It->second->Compiler};
  Line.insert(Line.end(), It->second->Flags.begin(), It->second->Flags.end());
  Line.insert(Line.end(), C.CommandLine.begin() + 1, C.CommandLine.end());
  C.CommandLine = std::move(Line);
  return C;
}

bool isFrontendCommand(const CompileCommand &C) {
  return C.CommandLine.size() > 1 && C.CommandLine[1] == "-cc1";
}

/// What a command parses: its directory, file and arguments but those that
/// name what it writes (`-o X`, `-MF X`, `-MT X`, `-MQ X`, `-MD`, `-MMD`).
static std::string parseKey(const CompileCommand &C) {
  std::string Key = C.Directory + '\0' + C.Filename;
  for (size_t I = 0; I < C.CommandLine.size(); ++I) {
    StringRef A = C.CommandLine[I];
    if (A == "-o" || A == "-MF" || A == "-MT" || A == "-MQ") {
      ++I;
      continue;
    }
    if (A != "-MD" && A != "-MMD")
      Key += '\0' + A.str();
  }
  return Key;
}

std::vector<CompileCommand>
BuildCommands::driverCommands(std::vector<CompileCommand> All) const {
  std::vector<CompileCommand> Out;
  std::set<std::string> Seen;
  for (CompileCommand &C : All)
    if (!isFrontendCommand(C)) {
      CompileCommand A = adjust(std::move(C));
      if (Seen.insert(parseKey(A)).second)
        Out.push_back(std::move(A));
    }
  return Out;
}

bool BuildCommands::onlyFrontendCommands(StringRef File) const {
  std::vector<CompileCommand> All = Base.getCompileCommands(File);
  return !All.empty() && llvm::all_of(All, isFrontendCommand);
}

std::vector<CompileCommand>
BuildCommands::getCompileCommands(StringRef File) const {
  return driverCommands(Base.getCompileCommands(File));
}

std::vector<CompileCommand> BuildCommands::getAllCompileCommands() const {
  return driverCommands(Base.getAllCompileCommands());
}

} // namespace hmplace
