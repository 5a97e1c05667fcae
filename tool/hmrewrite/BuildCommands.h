//===- BuildCommands.h - compile commands of real builds --------*- C++ -*-===//
///
/// \file
/// A compile database as CMake, bear and recursive make write it is not what
/// LibTooling parses well: `file` entries relative to each command's own
/// `directory`, and compilers that are MPI wrappers (`mpicc`) whose include
/// paths only the wrapper knows. BuildCommands sits in front of the project's
/// database and hands out commands that name the file by its absolute path
/// and call the wrapper's real compiler with the wrapper's compile flags.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_BUILDCOMMANDS_H
#define HMPLACE_HMREWRITE_BUILDCOMMANDS_H

#include "plan/Diag.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hmplace {

/// What an MPI compiler wrapper runs: its compiler and the flags it adds to
/// a compile (include paths, defines, -pthread).
struct WrapperExpansion {
  std::string Compiler;
  std::vector<std::string> Flags;
};

/// Whether \p Compiler (a path or a name) is an MPI compiler wrapper of
/// Open MPI, MPICH or Intel MPI (mpicc, mpicxx, mpic++, mpiCC, mpif90, ...,
/// also with a suffix such as mpicc.openmpi).
bool isMPIWrapper(llvm::StringRef Compiler);

/// Ask the wrapper what it runs: `--showme:command` and `--showme:compile`
/// (Open MPI), else `-show` (MPICH, Intel MPI). \p Err says why not.
std::optional<WrapperExpansion> askMPIWrapper(llvm::StringRef Compiler,
                                              std::string &Err);

/// Whether \p C is clang's internal front-end command (`clang -cc1 ...`),
/// which bear records beside the driver's when it sees both processes.
bool isFrontendCommand(const clang::tooling::CompileCommand &C);

/// Also: commands that run clang's front end directly (`clang -cc1`) are
/// skipped in favour of the driver command for the same file, as clangd does;
/// and commands of one file that differ only in what they write (`-o`, the
/// dependency file) are one: the file is parsed once for them (a build that
/// compiles one source into 62 objects of the same flags).
class BuildCommands : public clang::tooling::CompilationDatabase {
public:
  BuildCommands(clang::tooling::CompilationDatabase &Base, DiagEngine &D)
      : Base(Base), D(D) {}

  std::vector<clang::tooling::CompileCommand>
  getCompileCommands(llvm::StringRef File) const override;
  std::vector<std::string> getAllFiles() const override {
    return Base.getAllFiles();
  }
  std::vector<clang::tooling::CompileCommand>
  getAllCompileCommands() const override;
  /// Whether every command of \p File is a -cc1 one (so none is used).
  bool onlyFrontendCommands(llvm::StringRef File) const;
  /// How many commands the database records for \p File.
  size_t recorded(llvm::StringRef File) const {
    return Base.getCompileCommands(File).size();
  }

private:
  clang::tooling::CompileCommand adjust(clang::tooling::CompileCommand C) const;
  std::vector<clang::tooling::CompileCommand>
  driverCommands(std::vector<clang::tooling::CompileCommand> All) const;

  clang::tooling::CompilationDatabase &Base;
  DiagEngine &D;
  /// Per wrapper as named in the database: its expansion, or none (and the
  /// failure was reported once).
  mutable std::map<std::string, std::optional<WrapperExpansion>> Wrappers;
};

} // namespace hmplace

#endif
