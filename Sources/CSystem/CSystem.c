#define _GNU_SOURCE
#include "CSystem.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
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

int pier_accept(int listen_fd) { return accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

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
