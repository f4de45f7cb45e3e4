package dev.tollgate.testsupport.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClusterViewTest {

    // CLUSTER NODES as Redis 7 prints it, with a hostname field, a failed primary and a migration in flight.
    private static final String NODES = """
            07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host-a slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
            67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
            292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383 [10923->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
            e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master,fail - 0 0 1 connected 0-5460
            6ec23923021cf3ffec47632106199cb7f496ce01 :0@0 handshake - 0 0 0 connected
            """;

    @Test
    void readsPortsRolesAndSlots() {
        ClusterView view = ClusterView.parse(NODES);

        assertThat(view.entries()).hasSize(5);
        ClusterView.Entry replica = view.entries().get(0);
        assertThat(replica.port()).isEqualTo(30004);
        assertThat(replica.isPrimary()).isFalse();
        assertThat(replica.primaryId()).isEqualTo("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca");
        assertThat(view.assignedSlots()).isEqualTo(RedisCluster.SLOTS);
        assertThat(view.ownerOf(10923)).get().extracting(ClusterView.Entry::port).isEqualTo(30003);
        assertThat(view.ownerOf(0)).get().satisfies(owner -> {
            assertThat(owner.isMyself()).isTrue();
            assertThat(owner.isFailing()).isTrue();
        });
        assertThat(view.entries().get(4).isJoining()).isTrue();
    }

    @Test
    void slotOwnershipIgnoresLineOrder() {
        String[] lines = NODES.strip().split("\n");
        String reversed = String.join("\n", lines[4], lines[3], lines[2], lines[1], lines[0]);

        assertThat(ClusterView.parse(reversed).slotOwnership()).isEqualTo(ClusterView.parse(NODES).slotOwnership());
    }
}
