/* Lets valgrind run a Swift server (Benchmarks/fanout-instructions.sh preloads it).
 *
 * An async Swift `main` ends in libdispatch's dispatch_main(), which calls sigsuspend() with a
 * mask in read-only memory. valgrind's wrapper of rt_sigsuspend rewrites the mask in place (to
 * keep its own signal unblocked) and dies of SIGSEGV on it, before the server has started
 * (valgrind 3.19 and 3.24 alike). This sigsuspend() hands the kernel a copy on the stack. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8 /* the kernel's sigset_t: 64 signals */);
}
