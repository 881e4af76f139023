package dev.seqvfs.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.cli.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Specifies how {@code seqvfs load <workload>} (makestat, lookup, socket-close, pipe-close) answers
 * bad input: one line on stderr naming the option and the value, exit status 2, no stack trace,
 * checked before anything runs (so nothing is printed on stdout). Limits: client counts 1 to 4096,
 * durations 0 (warm-up) or above 0 (time) to 86400 seconds, lookup's deepest path within PATH_MAX
 * (4096 bytes with its NUL, limits.h), result files in an existing, writable directory. What
 * picocli itself refuses while parsing (a value that is not a number, an unknown option, a missing
 * required option, a workload that does not exist) answers the same way: one line, exit 2, never
 * the usage text. Values are read alike by every option: whitespace around a number or a name is
 * dropped, an empty value is refused, and so is an empty element anywhere in a list.
 */
class BadInputTest {
    @TempDir Path tmp;

    /**
     * Asserts a usage error: exit 2, nothing on stdout, exactly one stderr line holding {@code
     * text}.
     */
    private static void assertUsageError(Cli.Result r, String text) {
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(text), r.err());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
    }

    @Test
    void lookup_clientsAboveTheLimit_failsUpFrontNamingTheLimit() {
        assertUsageError(
                Cli.run("load", "lookup", "--clients", "1,2147483647"),
                "seqvfs load lookup: --clients 2147483647: a client count must be between 1 and 4096");
    }

    @Test
    void socketClose_clientsAboveTheLimit_failsUpFront() {
        assertUsageError(Cli.run("load", "socket-close", "--clients", "20000"), "--clients 20000:");
    }

    @Test
    void makestat_hugeTime_failsUpFrontNamingTheBound() throws Exception {
        assertUsageError(
                Cli.run(
                        "load",
                        "makestat",
                        "--tree",
                        Cli.smallZip(tmp).toString(),
                        "--time",
                        "2147483647"),
                "--time 2147483647: must be above 0 and at most 86400 seconds");
    }

    @Test
    void makestat_negativeWarmup_failsNamingWarmup() throws Exception {
        assertUsageError(
                Cli.run(
                        "load",
                        "makestat",
                        "--tree",
                        Cli.smallZip(tmp).toString(),
                        "--warmup",
                        "-1"),
                "--warmup -1: must be from 0 to 86400 seconds");
    }

    @Test
    void lookup_hugeWarmup_failsUpFront() {
        assertUsageError(
                Cli.run("load", "lookup", "--warmup", "1e9"),
                "--warmup 1000000000: must be from 0 to 86400");
    }

    @Test
    void lookup_jsonUnderProc_failsBeforeTheRunInWords() {
        Cli.Result r = Cli.run("load", "lookup", "--ops", "10", "--json", "/proc/nope.json");
        assertUsageError(r, "seqvfs load lookup: --json /proc/nope.json: cannot write: ");
        assertFalse(r.err().contains("java."), r.err());
    }

    @Test
    void lookup_chartInMissingDirectory_failsAndCreatesNothing() {
        Path chart = tmp.resolve("absent/sub/c.svg");
        assertUsageError(
                Cli.run("load", "lookup", "--ops", "10", "--chart", chart.toString()),
                "--chart " + chart + ": directory " + chart.getParent() + " does not exist");
        assertFalse(Files.exists(tmp.resolve("absent")));
    }

    @Test
    void pipeClose_jsonIsADirectory_failsSayingSo() {
        assertUsageError(
                Cli.run("load", "pipe-close", "--ops", "10", "--json", tmp.toString()),
                "--json " + tmp + ": is a directory, not a file");
    }

    @Test
    void lookup_depthPastPathMax_failsNamingTheLargestDepth_whichRuns() {
        Cli.Result r = Cli.run("load", "lookup", "--clients", "1", "--depth", "100000");
        assertUsageError(r, "--depth 100000: the deepest path");
        assertTrue(r.err().contains("must fit PATH_MAX, 4096 bytes with its NUL"), r.err());
        Matcher m = Pattern.compile("the largest depth here is (\\d+)").matcher(r.err());
        assertTrue(m.find(), r.err());

        Cli.Result ok =
                Cli.run(
                        "load",
                        "lookup",
                        "--clients",
                        "1",
                        "--ops",
                        "10",
                        "--warmup",
                        "0",
                        "--no-progress",
                        "--depth",
                        m.group(1));
        assertEquals(0, ok.exit(), ok.err());
        Cli.Result over =
                Cli.run(
                        "load",
                        "lookup",
                        "--clients",
                        "1",
                        "--depth",
                        Integer.toString(Integer.parseInt(m.group(1)) + 1));
        assertEquals(2, over.exit(), over.err());
    }

    @Test
    void dbench_clientsNotANumber_oneLineNamingTheOptionAndTheValue() {
        assertUsageError(
                Cli.run("load", "dbench", "--clients", "abc"),
                "seqvfs load dbench: --clients abc: not a whole number");
    }

    @Test
    void dbench_clientsPastTheIntRange_saysTooLarge() {
        assertUsageError(
                Cli.run("load", "dbench", "--clients", "99999999999"),
                "seqvfs load dbench: --clients 99999999999: too large");
    }

    @Test
    void dbench_clientsBelowTheLongRange_saysTooSmall() {
        assertUsageError(
                Cli.run("load", "dbench", "--clients", "-99999999999"),
                "seqvfs load dbench: --clients -99999999999: too small (at least -2147483648)");
    }

    @Test
    void numbers_surroundingWhitespace_isIgnored_soTheNumberIsCheckedAgainstItsRange() {
        // each value parses (its whitespace dropped) and is then refused by its range check,
        // which prints the number it read: nothing runs
        assertUsageError(
                Cli.run("load", "dbench", "--clients", " 20000"),
                "seqvfs load dbench: --clients 20000: a client count must be between 1 and 4096");
        assertUsageError(
                Cli.run("load", "lookup", "--clients", "1, 20000 "),
                "seqvfs load lookup: --clients 20000: a client count must be between 1 and 4096");
        assertUsageError(
                Cli.run("load", "lookup", "--ops", "\t0 "),
                "seqvfs load lookup: --ops 0: must be at least 1");
        assertUsageError(
                Cli.run("load", "socket-close", "--warmup", " 90000"),
                "seqvfs load socket-close: --warmup 90000: must be from 0 to 86400 seconds");
    }

    @Test
    void numbers_badValueWithWhitespace_isQuotedInTheMessage() {
        assertUsageError(
                Cli.run("load", "dbench", "--clients", " x"),
                "seqvfs load dbench: --clients ' x': not a whole number");
    }

    @Test
    void fractions_javasTypeSuffix_isNotANumber() {
        // Java's Double.parseDouble reads "2d" as 2: a user meaning two days would get 2 seconds
        assertUsageError(
                Cli.run("load", "dbench", "--time", "2d"),
                "seqvfs load dbench: --time 2d: not a number");
        assertUsageError(
                Cli.run("load", "lookup", "--warmup", "1f"),
                "seqvfs load lookup: --warmup 1f: not a number");
    }

    /** Every option of every workload that takes a value, with its workload's name. */
    private static List<String[]> valueOptions() {
        List<String[]> all = new ArrayList<>();
        CommandLine load = Main.commandLine().getSubcommands().get("load");
        for (Map.Entry<String, CommandLine> w : load.getSubcommands().entrySet()) {
            for (OptionSpec o : w.getValue().getCommandSpec().options()) {
                if (o.arity().max() > 0 && !o.usageHelp() && !o.versionHelp()) {
                    all.add(
                            new String[] {
                                w.getKey(), o.longestName(), o.splitRegex().isEmpty() ? "" : ","
                            });
                }
            }
        }
        return all;
    }

    @Test
    void everyOption_emptyValue_isRefusedSayingItIsEmpty() {
        List<String[]> options = valueOptions();
        assertTrue(options.size() > 30, options.size() + " options");
        for (String[] o : options) {
            assertUsageError(
                    Cli.run("load", o[0], o[1], ""),
                    "seqvfs load " + o[0] + ": " + o[1] + " '': empty value");
        }
    }

    @Test
    void everyListOption_emptyElementAnywhere_isRefusedNamingTheValue() {
        int lists = 0;
        for (String[] o : valueOptions()) {
            if (o[2].isEmpty()) {
                continue;
            }
            lists++;
            for (String v : new String[] {"1,2,", "1,,2", ",1", "1, ,2", ","}) {
                assertUsageError(
                        Cli.run("load", o[0], o[1], v),
                        "seqvfs load "
                                + o[0]
                                + ": "
                                + o[1]
                                + " "
                                + v
                                + ": empty element in the list");
            }
        }
        // --clients of makestat, lookup, socket-close, pipe-close; --compare of the last two
        assertEquals(6, lists);
    }

    @Test
    void singleValueOption_aList_isNotAWholeNumber() {
        assertUsageError(
                Cli.run("load", "dbench", "--clients", "1,2,"),
                "seqvfs load dbench: --clients 1,2,: not a whole number");
    }

    @Test
    void lookup_emptyJson_saysItIsEmpty_notThatItIsADirectory() {
        Cli.Result r = Cli.run("load", "lookup", "--ops", "10", "--json", "");
        assertUsageError(r, "seqvfs load lookup: --json '': empty value");
        assertFalse(r.err().contains("directory"), r.err());
    }

    @Test
    void dbench_unknownOption_oneLineNamingItAndWhereTheOptionsAreListed() {
        Cli.Result r = Cli.run("load", "dbench", "--bogus");
        assertUsageError(r, "seqvfs load dbench: --bogus: unknown option");
        assertTrue(r.err().contains("seqvfs load dbench --help"), r.err());
    }

    @Test
    void dbench_optionWithoutItsValue_saysItNeedsOne() {
        assertUsageError(
                Cli.run("load", "dbench", "--clients"),
                "seqvfs load dbench: --clients needs a value (N)");
    }

    @Test
    void makestat_withoutTree_saysTreeIsRequired() {
        assertUsageError(
                Cli.run("load", "makestat"), "seqvfs load makestat: --tree PATH is required");
    }

    @Test
    void makestat_clientListWithANonNumber_namesTheBadElement() {
        assertUsageError(
                Cli.run("load", "makestat", "--tree", tmp.toString(), "--clients", "1,x"),
                "seqvfs load makestat: --clients x: not a whole number");
    }

    @Test
    void lookup_warmupNotANumber_saysSo() {
        assertUsageError(
                Cli.run("load", "lookup", "--warmup", "soon"),
                "seqvfs load lookup: --warmup soon: not a number");
    }

    @Test
    void socketClose_optionGivenTwice_saysOnce() {
        assertUsageError(
                Cli.run("load", "socket-close", "--ops", "1", "--ops", "2"),
                "seqvfs load socket-close: --ops given twice");
    }

    @Test
    void load_unknownWorkload_namesTheWorkloads() {
        assertUsageError(
                Cli.run("load", "dbnech"),
                "seqvfs load: dbnech: no such workload (dbench, makestat, socket-close, pipe-close, lookup)");
    }

    @Test
    void workload_unexpectedArgument_saysItTakesOptionsOnly() {
        assertUsageError(
                Cli.run("load", "lookup", "extra"),
                "seqvfs load lookup: extra: unexpected argument");
    }

    @Test
    void seqvfs_withoutACommand_printsTheUsageOnStderrAndExitsTwo() {
        Cli.Result r = Cli.run();
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("Usage: seqvfs [-hV] [COMMAND]"), r.err());
        assertTrue(r.err().contains("load"), r.err());
    }

    @Test
    void load_withoutAWorkload_printsItsUsageOnStderrAndExitsTwo() {
        Cli.Result r = Cli.run("load");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        assertTrue(
                r.err()
                        .startsWith(
                                "Usage: seqvfs load [-hV] [--data-dir=D] [--data-options=OPTS] [COMMAND]"),
                r.err());
        assertTrue(r.err().contains("dbench") && r.err().contains("makestat"), r.err());
    }

    @Test
    void load_withADataDir_runsTheWorkloadOnPersistfs_andLeavesItsJournalThere_whichFsckFindsClean(
            @TempDir Path d) throws Exception {
        Path data = d.resolve("journal");
        try {
            Cli.Result r =
                    Cli.run(
                            "load",
                            "lookup",
                            "--data-dir",
                            data.toString(),
                            "--clients",
                            "1",
                            "--ops",
                            "200",
                            "--warmup",
                            "0");
            assertEquals(0, r.exit(), r.out() + r.err());
            assertTrue(Files.isDirectory(data.resolve("seqvfs.log")), r.out() + r.err());
        } finally {
            System.clearProperty("seqvfs.root.type");
            System.clearProperty("seqvfs.root.options");
            com.typesafe.config.ConfigFactory.invalidateCaches();
        }
        Cli.Result r = Cli.run("fsck", "--data-dir", data.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("; 0 corrected, 0 errors"), r.out());
        // a store another instance holds: one line that names the cause (another process's hold
        // was the last line of a 40-line trace), the operational error status
        try (dev.seqvfs.engine.SeqVfs held =
                dev.seqvfs.engine.SeqVfs.create(
                        dev.seqvfs.persist.PersistfsType.rootConfig(data))) {
            Cli.Result busy = Cli.run("fsck", "--data-dir", data.toString());
            assertEquals(8, busy.exit(), busy.out() + busy.err());
            assertTrue(
                    busy.err().startsWith("seqvfs fsck: ")
                            && busy.err().strip().lines().count() == 1
                            && busy.err().contains("EBUSY"), // held by this JVM: EBUSY
                    busy.err());
        }
        Cli.Result none = Cli.run("fsck", "--data-dir", d.resolve("nothing").toString());
        assertEquals(8, none.exit(), none.out() + none.err());
        assertTrue(
                none.err().startsWith("seqvfs fsck: ")
                        && none.err().contains("is not a persistfs data directory"),
                none.err());
        assertEquals(2, Cli.run("fsck").exit(), "--data-dir is required");
        Cli.Result store = Cli.run("fsck", "--data-options", "store=floppy");
        assertEquals(2, store.exit(), store.out() + store.err());
        assertTrue(
                store.err().contains("store=floppy is none of log, h2, postgresql"), store.err());
        // no such schema, or no server at all: an operational error either way
        Cli.Result schema =
                Cli.run(
                        "fsck",
                        "--data-options",
                        "store=postgresql,schema=seqvfs_no_such_" + System.nanoTime());
        assertEquals(8, schema.exit(), schema.out() + schema.err());
        assertTrue(schema.err().startsWith("seqvfs fsck: "), schema.err());
    }

    @Test
    void version_onLoadAndOnAWorkload_printsTheProjectVersion() {
        for (String[] args :
                new String[][] {
                    {"-V"}, {"load", "-V"}, {"load", "dbench", "-V"}, {"load", "lookup", "-V"}
                }) {
            Cli.Result r = Cli.run(args);
            assertEquals(0, r.exit());
            assertTrue(
                    r.out().matches("seqvfs \\d+\\.\\d+\\.\\d+\\S*\\R"),
                    String.join(" ", args) + ": " + r.out());
        }
    }
}
