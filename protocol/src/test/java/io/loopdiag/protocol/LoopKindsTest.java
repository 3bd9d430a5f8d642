package io.loopdiag.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class LoopKindsTest {

    @Test
    void aLoopWithoutAKindIsLoopCoresAndEveryOtherKindIsForeign() {
        assertEquals(LoopKinds.LOOP_CORE, LoopKinds.of(null));
        assertEquals(LoopKinds.NETTY, LoopKinds.of("netty"));
        assertFalse(LoopKinds.isForeign(null));
        assertFalse(LoopKinds.isForeign("loop-core"));
        assertTrue(LoopKinds.isForeign("netty"));
        assertTrue(LoopKinds.isForeign("kotlin"), "a kind a newer agent writes");
    }

    @Test
    void theKindsAreTheDumpsWordsLoopCoresFirst() {
        assertEquals(List.of("loop-core", "netty", "vertx", "reactor", "awt", "named"), LoopKinds.all());
    }

    @Test
    void onlyReactorAndNamedThreadsHaveNoUnitsOfWork() {
        assertTrue(LoopKinds.hasUnits(null));
        assertTrue(LoopKinds.hasUnits(LoopKinds.NETTY));
        assertTrue(LoopKinds.hasUnits(LoopKinds.VERTX));
        assertTrue(LoopKinds.hasUnits(LoopKinds.AWT));
        assertTrue(LoopKinds.hasUnits("kotlin"));
        assertFalse(LoopKinds.hasUnits(LoopKinds.REACTOR));
        assertFalse(LoopKinds.hasUnits(LoopKinds.NAMED));
    }

    @Test
    void eachFrameworkPackageEndsWithADot() {
        for (String kind : LoopKinds.all()) {
            LoopKinds.frameworkPackages(kind).forEach(name -> assertTrue(name.endsWith("."), kind + ": " + name));
        }
        assertEquals(List.of(), LoopKinds.frameworkPackages(LoopKinds.LOOP_CORE));
        assertEquals(List.of(), LoopKinds.frameworkPackages("kotlin"));
    }
}
