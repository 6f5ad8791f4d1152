/* The limit a server can reach on this machine: it answers every read with the same bytes (a whole HTTP response,
 * read from a file at start) and parses nothing — no request line, no header, no routing. One thread and epoll, any
 * number of connections; a read that ends with an empty line gets the reply (the clients send one request at a time).
 * With `close`, the connection is closed once the reply is written (its file then says `Connection: close`), as a
 * server answering `Connection: close` does; otherwise the client closes. scripts/bench's `instructions` section counts
 * its user-space instructions per request, and its `limits` section its requests a second beside pier and nginx.
 * Build: cc -O2 -o fixed_reply fixed_reply.c; run: fixed_reply PORT RESPONSE_FILE [close]. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MAX_FDS = 65536 };
static size_t pending[MAX_FDS]; /* bytes of the reply still to write, per connection */

static char reply[1 << 20];
static size_t length;
static int closing;

/* Writes what is left of the reply; 1 when the connection is done with (closed), 0 to wait for EPOLLOUT or a read. */
static int send_rest(int epoll, int connection) {
    while (pending[connection] > 0) {
        ssize_t wrote = write(connection, reply + length - pending[connection], pending[connection]);
        if (wrote < 0 && errno == EAGAIN) {
            struct epoll_event event = {.events = EPOLLIN | EPOLLOUT, .data.fd = connection};
            epoll_ctl(epoll, EPOLL_CTL_MOD, connection, &event);
            return 0;
        }
        if (wrote <= 0) { close(connection); return 1; }
        pending[connection] -= (size_t)wrote;
    }
    if (closing) { close(connection); return 1; }
    struct epoll_event event = {.events = EPOLLIN, .data.fd = connection};
    epoll_ctl(epoll, EPOLL_CTL_MOD, connection, &event);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) { fprintf(stderr, "usage: %s PORT RESPONSE_FILE [close]\n", argv[0]); return 2; }
    closing = argc == 4 && strcmp(argv[3], "close") == 0;
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror("response file"); return 1; }
    length = fread(reply, 1, sizeof reply, file);
    fclose(file);
    int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 4096)) { perror("listen"); return 1; }
    int epoll = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
    epoll_ctl(epoll, EPOLL_CTL_ADD, listener, &event);
    static char input[65536];
    static struct epoll_event events[512];
    for (;;) {
        int ready = epoll_wait(epoll, events, 512, -1);
        for (int i = 0; i < ready; i++) {
            int fd = events[i].data.fd;
            if (fd == listener) {
                int connection;
                while ((connection = accept4(listener, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (connection >= MAX_FDS) { close(connection); continue; }
                    setsockopt(connection, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
                    pending[connection] = 0;
                    struct epoll_event added = {.events = EPOLLIN, .data.fd = connection};
                    epoll_ctl(epoll, EPOLL_CTL_ADD, connection, &added);
                }
                continue;
            }
            if (events[i].events & EPOLLOUT) {
                if (send_rest(epoll, fd)) continue;
            }
            if (!(events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
            ssize_t got = read(fd, input, sizeof input);
            if (got == 0 || (got < 0 && errno != EAGAIN)) { close(fd); continue; }
            /* A request is whole when the bytes read end with its empty line. */
            if (got >= 4 && memcmp(input + got - 4, "\r\n\r\n", 4) == 0 && pending[fd] == 0) {
                pending[fd] = length;
                send_rest(epoll, fd);
            }
        }
    }
}
