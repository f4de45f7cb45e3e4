package dev.tollgate.bench.report;

import java.util.ArrayList;
import java.util.List;

/** A Markdown table: a header row and rows of already formatted cells. */
public final class Table {

    private final String caption;
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String caption, List<String> header) {
        this.caption = caption;
        this.header = List.copyOf(header);
    }

    public Table row(List<String> cells) {
        if (cells.size() != header.size()) {
            throw new IllegalArgumentException("row has " + cells.size() + " cells, header " + header.size() + ": " + cells);
        }
        rows.add(List.copyOf(cells));
        return this;
    }

    public Table row(String... cells) {
        return row(List.of(cells));
    }

    public String caption() {
        return caption;
    }

    public List<String> header() {
        return header;
    }

    public List<List<String>> rows() {
        return List.copyOf(rows);
    }

    public String toMarkdown() {
        StringBuilder out = new StringBuilder();
        if (caption != null && !caption.isBlank()) {
            out.append(caption).append("\n\n");
        }
        line(out, header);
        out.append('|');
        for (int i = 0; i < header.size(); i++) {
            out.append(i == 0 ? "---" : "---:").append('|');
        }
        out.append('\n');
        for (List<String> row : rows) {
            line(out, row);
        }
        return out.toString();
    }

    private static void line(StringBuilder out, List<String> cells) {
        out.append('|');
        for (String cell : cells) {
            out.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        out.append('\n');
    }
}
