/*===- profile.h - HmPlace's MemProf profile support, shared parts --------===*
 *
 * The requests that the profile support library (profile.c) makes through
 * memalign so that LLVM's MemProf records them when they are still live
 * at exit: 64 KiB and more (the runtime's primary allocator ends at 128 KiB;
 * below that the block is found without help, above it only with a
 * memalign's magic word).
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_PROFILE_H
#define HMPLACE_PROFILE_H

#include <stddef.h>

enum { HM_PROFILE_BIG = 64 << 10, HM_PROFILE_ALIGN = 64 };

/* The largest calloc MemProf's runtime serves from its primary allocator
 * (blocks up to 128 KiB, a 16-byte chunk header included); a memalign of
 * more comes from its secondary allocator, which maps fresh zero pages for
 * each block (compiler-rt memprof_allocator.cpp, Allocate and Calloc). */
enum { HM_PROFILE_PRIMARY_LAST = (128 << 10) - 16 };

/* HmPlace.so (profile mode) brackets each call into flang's runtime that
 * allocates an array with these: \p frame is the calling function's frame
 * pointer. */
void hmplace_profile_enter(void *frame);
void hmplace_profile_exit(void);

#endif
