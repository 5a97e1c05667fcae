//===- FunctionIndex.h - the binary's functions, from DWARF ---*- C++ -*-===//
///
/// \file
/// A MemProf frame names a function by the MD5 of its linkage name (and,
/// from a raw profile read with names kept, by the name itself), a line
/// offset from the line the function is declared on, and a column. The
/// binary's DWARF has, per function, the file and line it is declared at:
/// file and declaration line plus offset give the call's own position, as
/// the symbolizer computed the offset from the same DW_AT_decl_line. A
/// function declared in two files under one name (two static functions)
/// cannot be told apart: frames through it are dropped, and the contexts
/// that need them say so.
///
/// The index also knows, per function, whether it keeps a frame pointer
/// (its DW_AT_frame_base names the frame-pointer register): MemProf unwinds
/// by frame pointers, so a function without one hides or loses its callers.
/// And, from optimised builds' call-site entries, which function a call at
/// a position calls.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_FUNCTIONINDEX_H
#define HMPLACE_HMPLAN_FUNCTIONINDEX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ObjectFile.h"

#include <map>
#include <set>
#include <string>

namespace hmplace {

class FunctionIndex {
public:
  struct Decl {
    std::string File; ///< absolute
    unsigned Line = 0;
    std::string Name; ///< demangled
    bool Ambiguous = false;
    /// 1: built with a frame pointer, 0: without, -1: the DWARF does not
    /// say (no concrete instance of the function, or another target).
    int FramePointer = -1;
  };

  /// False (and nothing indexed) if \p Ctx has no DWARF to read.
  bool build(llvm::DWARFContext &Ctx);

  const Decl *byName(llvm::StringRef Name) const;
  const Decl *byGUID(uint64_t G) const;
  const std::map<uint64_t, const Decl *> &guids() const { return ByGUID; }

  /// A function a call calls: its name in the debug info, and its symbol
  /// (the linkage name; the name where it has none).
  struct Callee {
    std::string Name, Symbol;
  };
  /// The function called at \p File:Line:Col if the debug info's call
  /// sites there call one that is no allocator, and none that is.
  const Callee *calleeAt(llvm::StringRef File, unsigned Line,
                         unsigned Col) const;
  /// Note the functions \p Obj defines (its symbol table), after build().
  void addSymbols(const llvm::object::ObjectFile &Obj);
  /// Whether the binary defines \p Symbol (a function calleeAt gave) but
  /// its debug info does not: compiled without -g, or from a static library.
  bool withoutDebugInfo(llvm::StringRef Symbol) const;

private:
  void addCallSite(llvm::DWARFContext &Ctx, const llvm::DWARFDie &Site);
  void add(llvm::StringRef Key, const std::string &File,
           llvm::StringRef CompDir, unsigned Line, llvm::StringRef Short,
           int FramePointer);

  struct CallsAt {
    bool Allocator = false;
    Callee Other;
  };
  std::set<std::string> Defined;   ///< function symbols of the binary
  std::set<std::string> Described; ///< short names with debug info
  std::map<std::string, CallsAt> Calls;
  std::map<std::string, Decl> ByName;
  std::map<uint64_t, const Decl *> ByGUID;
  bool HasLines = false;
};


} // namespace hmplace

#endif
