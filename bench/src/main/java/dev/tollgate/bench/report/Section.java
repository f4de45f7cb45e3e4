package dev.tollgate.bench.report;

import java.util.ArrayList;
import java.util.List;

/** One scenario's part of the report: how it was measured, its tables, its charts and what to note. */
public final class Section {

    /** One of the "done when" targets, and what this run measured for it. */
    public record Check(String target, String measured, boolean met) {
    }

    /** A chart written beside the report, by its path relative to the report. */
    public record Chart(String caption, String relativePath) {
    }

    private final int number;
    private final String title;
    private final List<String> method = new ArrayList<>();
    private final List<Table> tables = new ArrayList<>();
    private final List<Chart> charts = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();
    private double seconds;

    public Section(int number, String title) {
        this.number = number;
        this.title = title;
    }

    public Section method(String paragraph) {
        method.add(paragraph);
        return this;
    }

    public Section table(Table table) {
        tables.add(table);
        return this;
    }

    public Section chart(Chart chart) {
        charts.add(chart);
        return this;
    }

    public Section note(String note) {
        notes.add(note);
        return this;
    }

    public Section check(String target, String measured, boolean met) {
        checks.add(new Check(target, measured, met));
        return this;
    }

    public List<Check> checks() {
        return List.copyOf(checks);
    }

    public void tookSeconds(double value) {
        this.seconds = value;
    }

    public int number() {
        return number;
    }

    public String title() {
        return title;
    }

    public List<String> method() {
        return List.copyOf(method);
    }

    public List<Table> tables() {
        return List.copyOf(tables);
    }

    public List<Chart> charts() {
        return List.copyOf(charts);
    }

    public List<String> notes() {
        return List.copyOf(notes);
    }

    public double seconds() {
        return seconds;
    }

    public String toMarkdown() {
        StringBuilder out = new StringBuilder();
        out.append("## ").append(number).append(". ").append(title).append("\n\n");
        for (String paragraph : method) {
            out.append(paragraph).append("\n\n");
        }
        for (Table table : tables) {
            out.append(table.toMarkdown()).append('\n');
        }
        for (Chart chart : charts) {
            out.append("![").append(chart.caption()).append("](").append(chart.relativePath()).append(")\n\n");
        }
        for (String note : notes) {
            out.append("- ").append(note).append('\n');
        }
        if (!notes.isEmpty()) {
            out.append('\n');
        }
        out.append(String.format(java.util.Locale.ROOT, "_This scenario took %.0f s._%n%n", seconds));
        return out.toString();
    }
}
