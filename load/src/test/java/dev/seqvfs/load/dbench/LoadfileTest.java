package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Specifies {@link Loadfile}: the dbench 4 client loadfile format as {@code child.c} reads it (one
 * operation per line, quoted paths, C numbers, the NT status last), every operation type with its
 * arguments, and clear errors naming the line for bad input.
 */
class LoadfileTest {
    /** One line of every operation type, in {@code client.txt}'s spelling. */
    private static final String EVERY_OP =
            """
            NTCreateX "\\clients\\client1\\~dmtmp" 0x1 0x2 9937 NT_STATUS_OK
            Close 9937 NT_STATUS_OK
            ReadX 10005 65536 4096 4096 NT_STATUS_OK
            WriteX 9938 65534 1 1 NT_STATUS_OK
            Rename "\\clients\\client1\\a.PPT" "\\clients\\client1\\b.TMP" NT_STATUS_OK
            Unlink "\\clients\\client1\\b.TMP" 0x6 NT_STATUS_OK
            Deltree "\\clients\\client1" NT_STATUS_OK
            Mkdir "\\clients" NT_STATUS_OK
            Rmdir "\\clients\\client1\\dir" NT_STATUS_DIRECTORY_NOT_EMPTY
            QUERY_PATH_INFORMATION "\\clients\\client1\\x" 1004 NT_STATUS_OBJECT_NAME_NOT_FOUND
            QUERY_FILE_INFORMATION 9938 258 NT_STATUS_OK
            QUERY_FS_INFORMATION 259 NT_STATUS_OK
            SET_FILE_INFORMATION 10005 1004 NT_STATUS_OK
            FIND_FIRST "\\clients\\client1\\~dmtmp\\<.JNK" 260 1366 0 NT_STATUS_NO_SUCH_FILE
            Flush 10012 NT_STATUS_OK
            LockX 10430 2147483538 1 NT_STATUS_OK
            UnlockX 10430 2147483538 1 NT_STATUS_OK""";

    @Test
    void parse_everyOperationType_keepsItsPathsNumbersAndStatus() throws Exception {
        List<LoadOp> ops = Loadfile.parse(EVERY_OP).ops();

        assertEquals(OpType.values().length, ops.size());
        assertEquals(
                EnumSet.allOf(OpType.class),
                ops.stream()
                        .map(LoadOp::type)
                        .collect(() -> EnumSet.noneOf(OpType.class), Set::add, Set::addAll));
        LoadOp create = ops.get(0);
        assertEquals(new LoadPath(true, "/~dmtmp"), create.path());
        assertArrayEquals(new long[] {1, 2, 9937}, create.args());
        assertEquals(NtStatus.OK, create.expected());
        assertArrayEquals(new long[] {10005, 65536, 4096, 4096}, ops.get(2).args());
        assertArrayEquals(new long[] {9938, 65534, 1, 1}, ops.get(3).args());
        assertEquals(new LoadPath(true, "/a.PPT"), ops.get(4).path());
        assertEquals(new LoadPath(true, "/b.TMP"), ops.get(4).path2());
        assertArrayEquals(new long[] {6}, ops.get(5).args());
        assertEquals(new LoadPath(true, ""), ops.get(6).path());
        assertEquals(new LoadPath(false, "/clients"), ops.get(7).path());
        assertEquals(NtStatus.DIRECTORY_NOT_EMPTY, ops.get(8).expected());
        assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, ops.get(9).expected());
        assertArrayEquals(new long[] {9938, 258}, ops.get(10).args());
        assertArrayEquals(new long[] {259}, ops.get(11).args());
        assertArrayEquals(new long[] {10005, 1004}, ops.get(12).args());
        assertEquals(new LoadPath(true, "/~dmtmp/<.JNK"), ops.get(13).path());
        assertArrayEquals(new long[] {260, 1366, 0}, ops.get(13).args());
        assertEquals(NtStatus.NO_SUCH_FILE, ops.get(13).expected());
        assertArrayEquals(new long[] {10012}, ops.get(14).args());
        assertArrayEquals(new long[] {10430, 2147483538L, 1}, ops.get(15).args());
        assertEquals(OpType.UNLOCK_X, ops.get(16).type());
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(i + 1, ops.get(i).line());
        }
    }

    @Test
    void parse_lineText_roundTripsThroughTheLoadfileSpelling() throws Exception {
        List<LoadOp> ops = Loadfile.parse(EVERY_OP).ops();
        String[] lines = EVERY_OP.split("\n", -1);
        for (int i = 0; i < ops.size(); i++) {
            assertEquals(lines[i], ops.get(i).text());
        }
    }

    @Test
    void resolve_clientPath_getsTheClientsDirectory() {
        LoadPath p = LoadPath.of("\\clients\\client1\\~dmtmp\\PWRPNT\\X.PPT");
        assertEquals("/clients/client3/~dmtmp/PWRPNT/X.PPT", p.resolve("", "/clients/client3"));
        assertEquals(
                "/clients",
                LoadPath.of("\\clients")
                        .resolve("/dev/shm/x", "/dev/shm/x/clients/client3")
                        .substring("/dev/shm/x".length()));
        // a name that merely starts like the client's directory is not in it
        assertFalse(LoadPath.of("\\clients\\client10\\f").inClientDir());
    }

    @Test
    void parse_commentsBlankAndOneTokenLines_areSkippedAndLinesStillCounted() throws Exception {
        List<LoadOp> ops =
                Loadfile.parse("# a comment\n\nlonely\n  \nClose 1 NT_STATUS_OK\n").ops();
        assertEquals(1, ops.size());
        assertEquals(5, ops.get(0).line());
    }

    @Test
    void parse_timestampPrefix_isIgnored() throws Exception {
        LoadOp op = Loadfile.parse("0.019599 Close 7 NT_STATUS_OK").ops().get(0);
        assertEquals(OpType.CLOSE, op.type());
        assertArrayEquals(new long[] {7}, op.args());
    }

    @Test
    void parse_operationNames_ignoreCaseAsDbench() throws Exception {
        assertEquals(
                OpType.QUERY_FS_INFORMATION,
                Loadfile.parse("query_fs_information 1 NT_STATUS_OK").ops().get(0).type());
    }

    @Test
    void parse_numbers_areCLiterals() throws Exception {
        LoadOp op = Loadfile.parse("LockX 0x10 010 12 NT_STATUS_OK").ops().get(0);
        assertArrayEquals(new long[] {16, 8, 12}, op.args());
    }

    @Test
    void parse_numericStatus_equalsItsName() throws Exception {
        LoadOp op = Loadfile.parse("Close 1 0xC0000034").ops().get(0);
        assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, op.expected());
    }

    @Test
    void parse_quotedPathWithBlank_isOneArgument() throws Exception {
        LoadOp op =
                Loadfile.parse("Mkdir \"\\clients\\client1\\two words\" NT_STATUS_OK").ops().get(0);
        assertEquals("/two words", op.path().rest());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "unknown operation     | Close 1 NT_STATUS_OK\\nFrobnicate 1 NT_STATUS_OK | line 2: unknown operation 'Frobnicate'",
                "too few arguments     | ReadX 1 2 3 NT_STATUS_OK                        | line 1: ReadX takes 0 path(s) and 4 number(s)",
                "too many arguments    | Close 1 2 NT_STATUS_OK                          | line 1: Close takes 0 path(s) and 1 number(s)",
                "bad number            | Close one NT_STATUS_OK                          | line 1: 'one' is not a number",
                "bad status            | Close 1 SUCCESS                                 | line 1: badly formed status",
                "path without backslash| Mkdir clients NT_STATUS_OK                      | line 1: path 'clients' does not start with",
                "unterminated quote    | Mkdir \"\\clients NT_STATUS_OK                  | line 1: unterminated quote",
                "directive             | REPEAT 5 NT_STATUS_OK                           | line 1: the REPEAT directive is not supported",
                "random argument       | ReadX 1 *%1024 4096 4096 NT_STATUS_OK           | line 1: random or relative argument '*%1024'",
                "negative size         | ReadX 1 0 -5 0 NT_STATUS_OK                     | line 1: offset and sizes must be non-negative",
            })
    void parse_malformedLine_failsNamingLineNumberAndText(
            String what, String text, String message) {
        String input = text.replace("\\n", "\n");
        LoadfileException e = assertThrows(LoadfileException.class, () -> Loadfile.parse(input));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
        String badLine = input.split("\n", -1)[e.line() - 1];
        assertTrue(e.getMessage().endsWith(": " + badLine), e.getMessage());
    }

    @Test
    void read_missingDefaultLoadfile_saysHowToGetIt() {
        String m = Loadfile.missingMessage(Loadfile.DEFAULT);
        assertTrue(
                m.contains("does not exist")
                        && m.contains("apt-get install dbench")
                        && m.contains("--loadfile"),
                m);
    }

    @Test
    void read_missingFile_failsWithClearMessage(@TempDir Path dir) {
        Path missing = dir.resolve("nope.txt");
        LoadfileException e = assertThrows(LoadfileException.class, () -> Loadfile.read(missing));
        assertEquals("does not exist", e.getMessage(), "the caller names the file");
        assertEquals(0, e.line());
    }

    @Test
    void read_gzipCompressedFile_isReadLikeDbenchsGzopen(@TempDir Path dir) throws Exception {
        Path gz = dir.resolve("client.txt.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write(EVERY_OP.getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(Loadfile.parse(EVERY_OP).ops(), Loadfile.read(gz).ops());
    }

    @Test
    void read_debianClientTxt_parsesEveryOperationLine() throws Exception {
        Assumptions.assumeTrue(
                Files.isReadable(Loadfile.DEFAULT),
                "skipped: " + Loadfile.missingMessage(Loadfile.DEFAULT));
        Loadfile lf = Loadfile.read(Loadfile.DEFAULT);
        long lines;
        try (var s = Files.lines(Loadfile.DEFAULT)) {
            lines = s.filter(l -> !l.isBlank()).count();
        }
        assertEquals(lines, lf.ops().size());
        assertNull(lf.ops().stream().filter(o -> o.type() == null).findAny().orElse(null));
    }
}
