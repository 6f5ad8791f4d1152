#define _GNU_SOURCE
#include "CSystem.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <sched.h>
#include <stddef.h>
#include <unistd.h>

const uint32_t PIER_EPOLLIN = EPOLLIN;
const uint32_t PIER_EPOLLOUT = EPOLLOUT;
const uint32_t PIER_EPOLLERR = EPOLLERR;
const uint32_t PIER_EPOLLHUP = EPOLLHUP;
const uint32_t PIER_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t PIER_EPOLLEXCLUSIVE = EPOLLEXCLUSIVE;
const int PIER_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
const int PIER_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
const int PIER_EPOLL_CTL_MOD = EPOLL_CTL_MOD;

int pier_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int pier_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &ev);
}

int pier_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tokens[i] = evs[i].data.u64;
        events[i] = evs[i].events;
    }
    return n;
}

int pier_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

int pier_accept(int listen_fd, uint8_t *peer16) {
    struct sockaddr_storage address;
    socklen_t length = sizeof(address);
    int fd = accept4(listen_fd, (struct sockaddr *)&address, &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    memset(peer16, 0, 16);
    if (fd < 0) return fd;
    if (address.ss_family == AF_INET) {
        memcpy(peer16, mapped_prefix, 12);
        memcpy(peer16 + 12, &((struct sockaddr_in *)&address)->sin_addr, 4);
    } else if (address.ss_family == AF_INET6) {
        memcpy(peer16, &((struct sockaddr_in6 *)&address)->sin6_addr, 16);
    }
    return fd;
}

int pier_parse_ip(const char *text, uint8_t *out16) {
    struct in_addr v4;
    if (inet_pton(AF_INET, text, &v4) == 1) {
        memcpy(out16, mapped_prefix, 12);
        memcpy(out16 + 12, &v4, 4);
        return 1;
    }
    return inet_pton(AF_INET6, text, out16) == 1;
}

const char *pier_format_ip(const uint8_t *in16, char *out, int size) {
    if (memcmp(in16, mapped_prefix, 12) == 0) return inet_ntop(AF_INET, in16 + 12, out, (socklen_t)size);
    return inet_ntop(AF_INET6, in16, out, (socklen_t)size);
}

int pier_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}
