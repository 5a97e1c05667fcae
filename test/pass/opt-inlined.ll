; An inlined call's key is its own position followed by its inlined-at
; chain, innermost first: stack entries of the plan match it, and so a
; wrapper's one malloc is placed differently per caller once inlined. The
; out-of-line wrapper knows no caller: it becomes a context site whose kind
; the runtime picks from the shadow stack (never the union of the entries).
; RUN: rm -rf %t && mkdir -p %t
; RUN: printf 'version: 1\nsites:\n  - {stack: [util.h:12, solver.c:88], kind: hbm}\n  - {stack: [util.h:12, grid.c:40], kind: ddr}\n' > %t/plan.yaml
; RUN: env HMPLACE_PLAN=%t/plan.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place -pass-remarks=hm-place -pass-remarks-missed=hm-place -S %s -o - 2> %t/remarks | FileCheck %s
; RUN: FileCheck %s --check-prefix=REMARK < %t/remarks
; The site's table is the text of HMPLACE_BY_CALLERS's arguments, which
; hmrewrite writes into sources: the runtime reads the same either way.
; CHECK: @hmplace.site = private constant {{.*}} c"\22util.h:12:10\22, (HMPLACE_HBW, \22solver.c:88\22), (HMPLACE_REGULAR, \22grid.c:40\22), HMPLACE_HEAP\00", align 16
; CHECK: @llvm.global_ctors = {{.*}} @hmplace.register_sites
; The decision is inline: the top of the per-thread stack compared with the
; entries' caller frames (ids: file name hash, line), the first match's kind
; selected; the site and the choice (1 + the entry's index in the
; descriptor's low bits: entry 1 matches first) are left in thread-local
; storage for the runtime's per-entry report, in one store. The index is
; kept in the stack's array by a mask.
; CHECK-LABEL: define ptr @xmalloc
; CHECK: %[[TLS:.*]] = call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@hmplace_ctx_tls)
; CHECK: %hm.depth = load i32, ptr %[[TLS]]
; CHECK: %[[BELOW:.*]] = sub i32 %hm.depth, 1
; CHECK: and i32 %[[BELOW]], 63
; CHECK: %hm.frame = load i64
; CHECK: %[[TOP:.*]] = lshr i64 %hm.frame, 12
; CHECK: icmp eq i64 %[[TOP]], 3260128120799272
; CHECK: %[[K1:.*]] = select i1 %{{.*}}, i32 0, i32 -1
; CHECK: %[[C1:.*]] = select i1 %{{.*}}, i64 2, i64 0
; CHECK: icmp eq i64 %{{.*}}, 810527370510424
; CHECK: %[[KIND:.*]] = select i1 %{{.*}}, i32 3, i32 %[[K1]]
; CHECK: %[[C0:.*]] = select i1 %{{.*}}, i64 1, i64 %[[C1]]
; CHECK: %[[TAGGED:.*]] = or i64 ptrtoint (ptr @hmplace.site to i64), %[[C0]]
; CHECK: %[[CH:.*]] = call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@hmplace_ctx_chosen)
; CHECK-NEXT: store i64 %[[TAGGED]], ptr %[[CH]]
; CHECK-NEXT: call ptr @hmplace_malloc(i32 %[[KIND]], i64 %n)
; REMARK: remark: util.h:12:10: placed malloc at /src/util.h:12:10 by its callers (call-stack entries: 'util.h:12 > solver.c:88' 'util.h:12 > grid.c:40'; otherwise the ordinary heap)
; CHECK-LABEL: define void @solver
; CHECK: call ptr @hmplace_malloc(i32 3, i64 %n)
; REMARK: remark: util.h:12:10: placed malloc at /src/util.h:12:10 in MEMKIND_HBW (plan entry 'util.h:12 > solver.c:88')
; CHECK-LABEL: define void @grid
; CHECK: call ptr @hmplace_malloc(i32 0, i64 %n)
; REMARK: remark: util.h:12:10: placed malloc at /src/util.h:12:10 in MEMKIND_REGULAR (plan entry 'util.h:12 > grid.c:40')

define ptr @xmalloc(i64 %n) !dbg !5 {
  %p = call ptr @malloc(i64 %n), !dbg !10
  ret ptr %p
}
define void @solver(i64 %n) !dbg !6 {
  %p = call ptr @malloc(i64 %n), !dbg !11
  ret void
}
define void @grid(i64 %n) !dbg !7 {
  %p = call ptr @malloc(i64 %n), !dbg !13
  ret void
}
declare ptr @malloc(i64)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}
!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "solver.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !DIFile(filename: "util.h", directory: "/src")
!4 = !DIFile(filename: "grid.c", directory: "/src")
!5 = distinct !DISubprogram(name: "xmalloc", scope: !3, file: !3, line: 11, unit: !0, spFlags: DISPFlagDefinition)
!6 = distinct !DISubprogram(name: "solver", scope: !1, file: !1, line: 80, unit: !0, spFlags: DISPFlagDefinition)
!7 = distinct !DISubprogram(name: "grid", scope: !4, file: !4, line: 30, unit: !0, spFlags: DISPFlagDefinition)
!10 = !DILocation(line: 12, column: 10, scope: !5)
!11 = !DILocation(line: 12, column: 10, scope: !5, inlinedAt: !12)
!12 = distinct !DILocation(line: 88, column: 7, scope: !6)
!13 = !DILocation(line: 12, column: 10, scope: !5, inlinedAt: !14)
!14 = distinct !DILocation(line: 40, column: 3, scope: !7)
