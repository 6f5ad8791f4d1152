/* The limit a server can reach on this machine: it answers every read with the same bytes (a whole HTTP response,
 * read from a file at start) and parses nothing — no request line, no header, no routing. One thread, one connection at
 * a time (the instruction counts of scripts/bench's `instructions` section ask one keep-alive connection, or one
 * connection per request); a read that ends with an empty line gets the reply, and `Connection: close` is not looked
 * for: the client closes. Build: cc -O2 -o fixed_reply fixed_reply.c; run: fixed_reply PORT RESPONSE_FILE. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s PORT RESPONSE_FILE\n", argv[0]); return 2; }
    FILE *file = fopen(argv[2], "rb");
    if (!file) { perror("response file"); return 1; }
    static char reply[1 << 20];
    size_t length = fread(reply, 1, sizeof reply, file);
    fclose(file);
    int listener = socket(AF_INET, SOCK_STREAM, 0), on = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[1])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 128)) { perror("listen"); return 1; }
    static char input[65536];
    for (;;) {
        int connection = accept(listener, NULL, NULL);
        if (connection < 0) continue;
        setsockopt(connection, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        ssize_t got;
        while ((got = read(connection, input, sizeof input)) > 0) {
            /* A request is whole when the bytes read end with its empty line (the clients send one at a time). */
            if (got >= 4 && memcmp(input + got - 4, "\r\n\r\n", 4) == 0) {
                size_t sent = 0;
                while (sent < length) {
                    ssize_t wrote = write(connection, reply + sent, length - sent);
                    if (wrote <= 0) break;
                    sent += (size_t)wrote;
                }
            }
        }
        close(connection);
    }
}
