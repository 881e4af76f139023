package dev.seqvfs.load.dbench;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The operations of a dbench client loadfile (the SMB calls a Windows client made, captured by
 * Samba), with the shape of their arguments and the name dbench's latency table gives them.
 *
 * <p>A line is {@code Name [paths...] [numbers...] STATUS}. The argument counts are those of dbench
 * 4's {@code client.txt} and of its local-file backend ({@code fileio.c}), which reads the numbers
 * as {@code params[0..]}.
 */
public enum OpType {
    /** {@code NTCreateX path create-options disposition handle}: open or create. */
    NT_CREATE_X("NTCreateX", "NTCreateX", 1, 3),
    /** {@code Close handle}. */
    CLOSE("Close", "Close", 0, 1),
    /** {@code ReadX handle offset size returned}: {@code pread}. */
    READ_X("ReadX", "ReadX", 0, 4),
    /** {@code WriteX handle offset size returned}: {@code pwrite}. */
    WRITE_X("WriteX", "WriteX", 0, 4),
    /** {@code Rename old new}. */
    RENAME("Rename", "Rename", 2, 0),
    /** {@code Unlink path attributes}. */
    UNLINK("Unlink", "Unlink", 1, 1),
    /** {@code Deltree path}: recursive removal. */
    DELTREE("Deltree", "Deltree", 1, 0),
    /** {@code Mkdir path}. */
    MKDIR("Mkdir", "Mkdir", 1, 0),
    /** {@code Rmdir path}. */
    RMDIR("Rmdir", "Rmdir", 1, 0),
    /** {@code QUERY_PATH_INFORMATION path level}: {@code stat}. */
    QUERY_PATH_INFORMATION("QUERY_PATH_INFORMATION", "Qpathinfo", 1, 1),
    /** {@code QUERY_FILE_INFORMATION handle level}: {@code fstat}. */
    QUERY_FILE_INFORMATION("QUERY_FILE_INFORMATION", "Qfileinfo", 0, 2),
    /** {@code QUERY_FS_INFORMATION level}: {@code statfs}. */
    QUERY_FS_INFORMATION("QUERY_FS_INFORMATION", "Qfsinfo", 0, 1),
    /** {@code SET_FILE_INFORMATION handle level}: {@code fstat} + {@code utime}. */
    SET_FILE_INFORMATION("SET_FILE_INFORMATION", "Sfileinfo", 0, 2),
    /** {@code FIND_FIRST pattern level max-count count}: list a directory, match a wildcard. */
    FIND_FIRST("FIND_FIRST", "Find", 1, 3),
    /** {@code Flush handle}: {@code fsync}. */
    FLUSH("Flush", "Flush", 0, 1),
    /** {@code LockX handle offset size}: a write record lock. */
    LOCK_X("LockX", "LockX", 0, 3),
    /** {@code UnlockX handle offset size}. */
    UNLOCK_X("UnlockX", "UnlockX", 0, 3);

    private static final Map<String, OpType> BY_NAME = new HashMap<>();

    static {
        for (OpType t : values()) {
            BY_NAME.put(t.loadfileName.toLowerCase(Locale.ROOT), t);
        }
    }

    private final String loadfileName;
    private final String displayName;
    private final int paths;
    private final int numbers;

    OpType(String loadfileName, String displayName, int paths, int numbers) {
        this.loadfileName = loadfileName;
        this.displayName = displayName;
        this.paths = paths;
        this.numbers = numbers;
    }

    /**
     * Returns the name as a loadfile spells it ({@code NTCreateX}, {@code QUERY_PATH_INFORMATION}).
     */
    public String loadfileName() {
        return loadfileName;
    }

    /** Returns the name dbench's latency table shows ({@code Qpathinfo}, {@code Find}). */
    public String displayName() {
        return displayName;
    }

    /** Returns how many path arguments the operation takes. */
    public int paths() {
        return paths;
    }

    /** Returns how many numeric arguments follow the paths. */
    public int numbers() {
        return numbers;
    }

    /**
     * Returns the operation a loadfile names, ignoring case as dbench's dispatcher ({@code
     * strcasecmp}) does, or {@code null} for an unknown name.
     */
    public static OpType byLoadfileName(String name) {
        return BY_NAME.get(name.toLowerCase(Locale.ROOT));
    }
}
