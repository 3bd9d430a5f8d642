package io.loopdiag.cli;

import io.loopdiag.views.Views;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table of text for a terminal or for a file: on a terminal ({@link Terminal#WIDTH}) each column
 * has its fixed width and a cell past it is cut with an ellipsis (a thread's name in its middle,
 * so its end stays); unbounded, each column is as wide as its widest cell and nothing is cut, so a
 * script reading a pipe gets every name whole.
 */
final class Table {
    /** One column: its header, its width on a terminal, and how a cell sits in it. */
    record Column(String header, int width, boolean right, boolean cutInMiddle) {
        static Column left(String header, int width) {
            return new Column(header, width, false, false);
        }

        static Column right(String header, int width) {
            return new Column(header, width, true, false);
        }

        static Column middle(String header, int width) {
            return new Column(header, width, false, true);
        }
    }

    private final List<Column> columns;
    private final Column last;
    private final List<String[]> rows = new ArrayList<>();

    /** A table of {@code columns}, then {@code last}, which takes what is left of the width. */
    Table(List<Column> columns, String last) {
        this.columns = List.copyOf(columns);
        this.last = Column.left(last, 0);
    }

    /** Adds a row: a cell per column, then the last one; already escaped for a terminal. */
    Table add(String... cells) {
        if (cells.length != columns.size() + 1) {
            throw new IllegalArgumentException("a row of " + cells.length + " cells for " + (columns.size() + 1) + " columns");
        }
        rows.add(cells);
        return this;
    }

    /** Prints the header and the rows to fit {@code width} ({@link Terminal#WIDTH}, or {@link Terminal#UNBOUNDED}). */
    void print(PrintWriter out, int width) {
        boolean bounded = width != Terminal.UNBOUNDED;
        int[] widths = new int[columns.size()];
        int used = 0;
        for (int c = 0; c < columns.size(); c++) {
            widths[c] = bounded ? columns.get(c).width() : columns.get(c).header().length();
            if (!bounded) {
                for (String[] row : rows) {
                    widths[c] = Math.max(widths[c], row[c].length());
                }
            }
            used += widths[c] + 1;
        }
        int lastWidth = bounded ? Math.max(0, width - used) : Integer.MAX_VALUE;
        String[] header = new String[columns.size() + 1];
        for (int c = 0; c < columns.size(); c++) {
            header[c] = columns.get(c).header();
        }
        header[columns.size()] = last.header();
        out.println(line(header, widths, lastWidth));
        rows.forEach(row -> out.println(line(row, widths, lastWidth)));
    }

    private String line(String[] cells, int[] widths, int lastWidth) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < columns.size(); c++) {
            Column column = columns.get(c);
            String cell = column.cutInMiddle() ? Views.fitMiddle(cells[c], widths[c]) : Views.fit(cells[c], widths[c]);
            String pad = " ".repeat(Math.max(0, widths[c] - cell.length()));
            line.append(column.right() ? pad + cell : cell + pad).append(' ');
        }
        return line.append(Views.fit(cells[columns.size()], lastWidth)).toString().stripTrailing();
    }
}
