#ifndef PIER_CSYSTEM_H
#define PIER_CSYSTEM_H

#include <stdint.h>

// Thin wrappers so Swift never touches the packed `struct epoll_event` or needs _GNU_SOURCE.

/// epoll_create1(EPOLL_CLOEXEC).
int pier_epoll_create(void);
/// Adds, modifies (op 1/3) or removes (op 2) `fd` with the given interest and token.
int pier_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
/// Waits for events; fills parallel arrays of tokens and event masks. Returns the count or -1.
int pier_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms);
/// A non-blocking, close-on-exec eventfd.
int pier_eventfd(void);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC. Writes the peer's address to `peer16` as 16 bytes (IPv4 as an
/// IPv4-mapped IPv6 address, ::ffff:a.b.c.d; zeros for other families).
int pier_accept(int listen_fd, uint8_t *peer16);
/// inet_pton for IPv4 or IPv6 text into 16 bytes (IPv4 mapped as above). 1 on success, 0 otherwise.
int pier_parse_ip(const char *text, uint8_t *out16);
/// inet_ntop of 16 bytes (an IPv4-mapped address prints as dotted IPv4). Returns `out` or NULL.
const char *pier_format_ip(const uint8_t *in16, char *out, int size);

/// CPUs this process may run on (its affinity mask, so taskset and cpusets are respected).
int pier_available_cpus(void);

extern const uint32_t PIER_EPOLLIN;
extern const uint32_t PIER_EPOLLOUT;
extern const uint32_t PIER_EPOLLERR;
extern const uint32_t PIER_EPOLLHUP;
extern const uint32_t PIER_EPOLLRDHUP;
extern const uint32_t PIER_EPOLLEXCLUSIVE;
extern const int PIER_EPOLL_CTL_ADD;
extern const int PIER_EPOLL_CTL_DEL;
extern const int PIER_EPOLL_CTL_MOD;

#endif
