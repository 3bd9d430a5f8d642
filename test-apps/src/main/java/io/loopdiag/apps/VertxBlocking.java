package io.loopdiag.apps;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.TimeUnit;

/**
 * A Vert.x 5 Web router whose {@code GET /report} handler runs a JDBC-style blocking query (a
 * {@value #QUERY_MILLIS} ms {@code Thread.sleep}) on its event loop, then records the request
 * through the event bus: the consumer of {@value #AUDIT_ADDRESS}, on the same event loop, makes a
 * blocking insert ({@value #AUDIT_MILLIS} ms) before it replies and the route answers. Its own
 * client calls it {@value #REQUESTS} times, one after another on one connection; then Vert.x is
 * closed. Each call stays under Vert.x's own blocked-thread warning (2 s), so without an agent
 * nothing is printed.
 */
final class VertxBlocking {
    static final String NAME = "vertx-blocking";
    static final String DESCRIPTION = "Vert.x Web route whose handler sleeps 300 ms on the event loop, its event-bus consumer 50 ms; called 4 times";
    static final long QUERY_MILLIS = 300;
    static final String AUDIT_ADDRESS = "report.audit";
    static final long AUDIT_MILLIS = 50;
    static final int REQUESTS = 4;
    private static final long STEP_TIMEOUT_SECONDS = 10;

    private VertxBlocking() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Vertx vertx = Vertx.vertx();
        try {
            ReportVerticle reports = new ReportVerticle();
            vertx.deployVerticle(reports).await(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            try (HttpConnection connection = new HttpConnection(reports.port)) {
                for (int i = 0; i < REQUESTS; i++) {
                    HttpConnection.Answer answer = connection.send("GET", "/report", null);
                    if (answer.status() != 200 || !answer.body().equals(ReportVerticle.ROWS)) {
                        throw new IllegalStateException("GET /report was answered " + answer.status() + " " + answer.body());
                    }
                }
            }
        } finally {
            vertx.close().await(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        return Main.done(NAME);
    }

    /** The reports service: an HTTP server on 127.0.0.1, any free port, routing on the verticle's event loop. */
    static final class ReportVerticle extends VerticleBase {
        static final String ROWS = "region,total\nnorth,42\nsouth,17\n";
        /** The server's port, once started. */
        volatile int port;

        @Override
        public Future<?> start() {
            Router router = Router.router(vertx);
            router.get("/report").handler(ReportVerticle::report);
            vertx.eventBus().consumer(AUDIT_ADDRESS, ReportVerticle::audit);
            return vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                    .onSuccess(server -> port = server.actualPort());
        }

        /** {@code GET /report}: runs the report's query, has the request recorded, and answers with its rows. */
        private static void report(RoutingContext ctx) {
            String rows = queryReportRows();
            ctx.vertx().eventBus().request(AUDIT_ADDRESS, "GET /report")
                    .onSuccess(recorded -> ctx.response().putHeader("Content-Type", "text/csv").end(rows))
                    .onFailure(ctx::fail);
        }

        /** The consumer of {@value #AUDIT_ADDRESS}: records one request and replies. */
        private static void audit(Message<String> message) {
            insertAuditRow(message.body());
            message.reply("recorded");
        }

        /** The second bug: the audit consumer inserts its row with a blocking call, on the same event loop. */
        private static void insertAuditRow(String request) {
            try {
                Thread.sleep(AUDIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("the audit insert of " + request + " was interrupted", e);
            }
        }

        /** The bug: a blocking query, as a JDBC driver makes, on the event loop (executeBlocking is the way). */
        private static String queryReportRows() {
            try {
                Thread.sleep(QUERY_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("the report's query was interrupted", e);
            }
            return ROWS;
        }
    }
}
