package io.loopdiag.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

class KindTest {

    @Test
    void eachKindIsFoundByItsIdInTheOrderOfACiSummary() {
        assertEquals(List.of("blocking-call", "slow-callback", "loop-stall", "never-awaited", "lost-exception"), Kind.ids());
        for (Kind kind : Kind.values()) {
            assertSame(kind, Kind.of(kind.id()));
        }
        assertNull(Kind.of("slow_callback"));
        assertEquals(Kind.BLOCKING_CALL_ID, Kind.BLOCKING_CALL.id());
    }
}
