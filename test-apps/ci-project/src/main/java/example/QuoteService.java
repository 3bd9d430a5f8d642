package example;

import static io.loopdiag.loop.Async.sleep;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Prices amounts on an event loop; exchange rates come from a cache, or from a slow lookup. */
public final class QuoteService {
    private final Map<String, Long> ratesInPercent = new HashMap<>(Map.of("EUR", 108L));

    /** {@code cents} in {@code currency}; call it from a loop task. */
    public long quote(String currency, long cents) throws Exception {
        Long rate = ratesInPercent.get(currency);
        if (rate == null) {
            rate = fetchRate(currency);
            ratesInPercent.put(currency, rate);
        }
        return cents * rate / 100;
    }

    private static long fetchRate(String currency) throws Exception {
        if (Boolean.getBoolean("example.block")) {
            Thread.sleep(20); // the bug: a blocking call, as an old HTTP client makes, stops the whole loop
        } else {
            sleep(Duration.ofMillis(20)); // suspends only this task
        }
        return currency.equals("GBP") ? 127 : 91;
    }
}
