"""Groups heaptrack's peak heap (a flame graph's stacks, demangled, on stdin) by the innermost
caller that is not an allocator, a collection or a runtime function, in bytes per viewer.

Usage: ... | python3 Benchmarks/heap_by_caller.py VIEWERS [ROWS]
"""

import collections
import re
import sys

# Frames that only say how memory was allocated, not what it is for.
PLUMBING = re.compile(
    r"^(swift_slowAlloc|swift_allocObject|malloc|calloc|realloc|operator new|swift::|_swift|swift_allocBox"
    r"|swift_task|swift_job|0x|__)|ByteBuffer\._Storage|_ContiguousArrayBuffer|_allocateUninitialized"
    r"|_copyCollectionToContiguousArray|_NativeDictionary|_DictionaryStorage|_NativeSet|_SetStorage"
    r"|ByteBufferAllocator|Array\.|Array<|ContiguousArray|_StringGuts|String\.|_StringObject|ManagedBuffer"
    r"|CircularBuffer|Deque|_Storage|\.reserveCapacity|\.append|\(.*\.c\)$|\(.*\.h\)$|\(.*\.cpp\)$"
)


def main() -> None:
    viewers = int(sys.argv[1])
    rows = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    total = 0
    by_caller: collections.Counter[str] = collections.Counter()
    for line in sys.stdin:
        stack, _, count = line.rstrip().rpartition(" ")
        frames = [frame for frame in stack.rstrip(";").split(";") if frame]
        if not frames:
            continue
        total += int(count)
        caller = next((frame for frame in reversed(frames) if not PLUMBING.search(frame)), frames[-1])
        by_caller[caller[:150]] += int(count)
    print(f"peak heap: {total} bytes, {total / viewers / 1024:.2f} KiB per viewer (base included)")
    print("bytes per viewer  innermost caller")
    for caller, count in by_caller.most_common(rows):
        print(f"{count / viewers:16.1f}  {caller}")


main()
