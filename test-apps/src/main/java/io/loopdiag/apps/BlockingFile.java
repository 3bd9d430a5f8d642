package io.loopdiag.apps;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * File I/O in a task: {@code FileOutputStream.write}, {@code FileInputStream.read},
 * {@code RandomAccessFile} write and read, {@code Files.write} and {@code Files.readAllBytes}, in a
 * temporary directory that the main thread creates before the loop runs and deletes after.
 * The page cache answers at once: these calls block only in principle.
 */
final class BlockingFile {
    static final String NAME = "blocking-file";
    static final String DESCRIPTION = "file reads and writes (java.io and java.nio.file) in a task";
    private static final byte[] CONTENT = "what a loop should not wait for\n".getBytes(StandardCharsets.UTF_8);

    private BlockingFile() {
    }

    static int main(String[] args) throws Exception {
        Main.requireNoArguments(args);
        Path directory = Files.createTempDirectory("loopdiag-" + NAME + "-");
        try {
            Blocking.run(NAME, () -> operations(directory));
        } finally {
            deleteTree(directory);
        }
        return Main.done(NAME);
    }

    private static void operations(Path directory) throws IOException {
        Path streams = directory.resolve("streams.txt");
        fileOutputStreamWrite(streams);
        check(fileInputStreamRead(streams));
        Path randomAccess = directory.resolve("random-access.txt");
        randomAccessFileWrite(randomAccess);
        check(randomAccessFileRead(randomAccess));
        Path nio = directory.resolve("nio.txt");
        filesWrite(nio);
        check(filesReadAllBytes(nio));
    }

    private static void fileOutputStreamWrite(Path file) throws IOException {
        try (FileOutputStream out = new FileOutputStream(file.toFile())) {
            out.write(CONTENT);
        }
    }

    private static byte[] fileInputStreamRead(Path file) throws IOException {
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            byte[] read = new byte[CONTENT.length];
            return Arrays.copyOf(read, in.read(read));
        }
    }

    private static void randomAccessFileWrite(Path file) throws IOException {
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            out.write(CONTENT);
        }
    }

    private static byte[] randomAccessFileRead(Path file) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            byte[] read = new byte[CONTENT.length];
            in.readFully(read);
            return read;
        }
    }

    private static void filesWrite(Path file) throws IOException {
        Files.write(file, CONTENT);
    }

    private static byte[] filesReadAllBytes(Path file) throws IOException {
        return Files.readAllBytes(file);
    }

    private static void check(byte[] read) {
        if (!Arrays.equals(CONTENT, read)) {
            throw new IllegalStateException("read back " + read.length + " bytes that differ from those written");
        }
    }

    private static void deleteTree(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
