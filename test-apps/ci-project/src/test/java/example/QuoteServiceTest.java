package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.loopdiag.loop.EventLoop;
import org.junit.jupiter.api.Test;

/** Plain tests: they pass whether or not the lookup blocks; only loopdiag sees the difference. */
class QuoteServiceTest {
    @Test
    void quotesAFreshCurrency() throws Exception {
        QuoteService service = new QuoteService();
        assertEquals(127, EventLoop.run(() -> service.quote("GBP", 100)));
    }
}
