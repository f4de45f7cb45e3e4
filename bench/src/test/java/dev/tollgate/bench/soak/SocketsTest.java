package dev.tollgate.bench.soak;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SocketsTest {

    @Test
    void readsTheEstablishedConnectionsOfAKernelSocketTable() {
        String table = """
                  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
                   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4623 1 0000000000000000 100 0 0 10 0
                   1: 0100007F:C350 0100007F:3E80 01 00000000:00000000 02:000A7D1F 00000000     0        0 388257 2 0000000000000000 20 4 30 10 -1
                   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 5250 1 0000000000000000 20 4 0 10 -1
                   3: 0100007F:D432 0100007F:1F90 06 00000000:00000000 03:00000A8E 00000000     0        0 0 3 0000000000000000
                """;

        assertThat(Sockets.established(table)).containsExactly(
                new Sockets.Connection(0xC350, 0x3E80, 388257),
                new Sockets.Connection(0x1F90, 0xD431, 5250));
    }

    @Test
    void countsThisProcessesOwnConnectionsByPeer() {
        // this JVM has no connections of its own here, but /proc answers for it
        Sockets.Count count = Sockets.of(ProcessHandle.current().pid(), java.util.Set.of(1), java.util.Set.of(2));

        assertThat(count).isNotNull();
        assertThat(count.total()).isEqualTo(count.inbound() + count.redis() + count.other());
    }
}
