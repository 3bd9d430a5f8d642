package io.loopdiag.apps;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.Security;

/**
 * Name look-ups in a task: {@code InetAddress.getByName} and {@code getAllByName} of
 * {@code localhost}, which the system resolver answers from /etc/hosts, without the network.
 */
final class BlockingDns {
    static final String NAME = "blocking-dns";
    static final String DESCRIPTION = "InetAddress.getByName and getAllByName (localhost) in a task";
    private static final String HOST = "localhost";

    private BlockingDns() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        // The JDK caches an answer for 30 s, so only the first look-up would reach the resolver;
        // read once, when InetAddress first resolves, so set it before.
        Security.setProperty("networkaddress.cache.ttl", "0");
        Blocking.run(NAME, BlockingDns::operations);
        return Main.done(NAME);
    }

    private static void operations() throws UnknownHostException {
        getByName();
        getAllByName();
    }

    private static void getByName() throws UnknownHostException {
        InetAddress.getByName(HOST);
    }

    private static void getAllByName() throws UnknownHostException {
        InetAddress.getAllByName(HOST);
    }
}
