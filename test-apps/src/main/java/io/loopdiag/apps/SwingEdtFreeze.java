package io.loopdiag.apps;

import java.awt.EventQueue;
import java.awt.Toolkit;
import java.awt.event.ActionEvent;
import java.awt.event.ActionListener;
import java.awt.event.InputEvent;
import java.awt.event.MouseEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import javax.swing.JButton;

/**
 * Swing, headless: a button {@code export} whose action listener writes a report to a file,
 * reads it back and waits {@value #SPOOL_MILLIS} ms for a "print spooler" with
 * {@code Thread.sleep}, all on the event dispatch thread ({@code AWT-EventQueue-0}). The scenario
 * clicks it by posting a mouse press and release to the system event queue, as a real click
 * arrives, waits for the EDT to have handled them ({@code invokeAndWait}) and exits. It sets
 * {@code java.awt.headless=true} itself, before anything touches AWT.
 */
final class SwingEdtFreeze {
    static final String NAME = "swing-edt-freeze";
    static final String DESCRIPTION = "headless Swing button whose action does file I/O and sleeps 300 ms on the EDT";
    static final long SPOOL_MILLIS = 300;
    private static final String REPORT = "region,total\nnorth,42\n";

    private SwingEdtFreeze() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        System.setProperty("java.awt.headless", "true");
        Path file = Files.createTempFile("loopdiag-" + NAME + "-", ".csv");
        try {
            ExportAction export = new ExportAction(file);
            JButton[] button = new JButton[1];
            EventQueue.invokeAndWait(() -> button[0] = exportButton(export));
            click(button[0]);
            EventQueue.invokeAndWait(() -> { }); // after the click's events, which were posted before it
            if (export.exports.get() != 1) {
                throw new IllegalStateException("the click ran the export " + export.exports.get() + " times, not once");
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return Main.done(NAME);
    }

    /** On the EDT: the button, with a size (a click is taken only inside it) and no window (headless has none). */
    private static JButton exportButton(ActionListener export) {
        JButton button = new JButton("Export");
        button.setName("export");
        button.setSize(120, 30);
        button.addActionListener(export);
        return button;
    }

    /** A left click in the middle of the button: the press and the release that make an action, on the event queue. */
    private static void click(JButton button) {
        int x = button.getWidth() / 2;
        int y = button.getHeight() / 2;
        long when = System.currentTimeMillis();
        for (int id : new int[] {MouseEvent.MOUSE_PRESSED, MouseEvent.MOUSE_RELEASED}) {
            int modifiers = id == MouseEvent.MOUSE_PRESSED ? InputEvent.BUTTON1_DOWN_MASK : 0;
            Toolkit.getDefaultToolkit().getSystemEventQueue().postEvent(
                    new MouseEvent(button, id, when, modifiers, x, y, 1, false, MouseEvent.BUTTON1));
        }
    }

    /** Exports the report; runs on the EDT, where it should hand the work to a SwingWorker. */
    static final class ExportAction implements ActionListener {
        private final Path file;
        final AtomicInteger exports = new AtomicInteger();

        ExportAction(Path file) {
            this.file = file;
        }

        @Override
        public void actionPerformed(ActionEvent event) {
            try {
                export();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("the export was interrupted", e);
            }
            exports.incrementAndGet();
        }

        /** The bug: file I/O and a sleep on the event dispatch thread; the whole UI is frozen meanwhile. */
        private void export() throws IOException, InterruptedException {
            Files.writeString(file, REPORT, StandardCharsets.UTF_8);
            String written = Files.readString(file, StandardCharsets.UTF_8);
            if (!written.equals(REPORT)) {
                throw new IllegalStateException("the report read back differs from the one written");
            }
            Thread.sleep(SPOOL_MILLIS); // waits for the print spooler
        }
    }
}
