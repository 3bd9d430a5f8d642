package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.loopdiag.junit.LoopdiagCheck;
import io.loopdiag.loop.EventLoop;
import org.junit.jupiter.api.Test;

/** The same service under the extension: a test whose loop blocks fails, the others pass. */
@LoopdiagCheck
class GuardedQuoteTest {
    @Test
    void cachedQuoteNeverWaits() throws Exception {
        QuoteService service = new QuoteService();
        assertEquals(108, EventLoop.run(() -> service.quote("EUR", 100)));
    }

    @Test
    void freshQuoteLooksTheRateUp() throws Exception {
        QuoteService service = new QuoteService();
        assertEquals(91, EventLoop.run(() -> service.quote("CHF", 100)));
    }
}
