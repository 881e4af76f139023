package dev.seqvfs.load.dbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.Errno;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Specifies {@link NtStatus}: parsing a loadfile's status (names and numeric codes) and the errno
 * to NT status mapping of a Samba server (Samba's {@code unix_nt_errmap}, with its path
 * resolution's distinction between a missing last component and a missing directory on the way).
 */
class NtStatusTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "EPERM, NT_STATUS_ACCESS_DENIED",
        "EACCES, NT_STATUS_ACCESS_DENIED",
        "EROFS, NT_STATUS_MEDIA_WRITE_PROTECTED",
        "EBADF, NT_STATUS_INVALID_HANDLE",
        "EINVAL, NT_STATUS_INVALID_PARAMETER",
        "EEXIST, NT_STATUS_OBJECT_NAME_COLLISION",
        "EMFILE, NT_STATUS_TOO_MANY_OPENED_FILES",
        "ENFILE, NT_STATUS_TOO_MANY_OPENED_FILES",
        "ENOSPC, NT_STATUS_DISK_FULL",
        "EFBIG, NT_STATUS_DISK_FULL",
        "ENOTEMPTY, NT_STATUS_DIRECTORY_NOT_EMPTY",
        "EXDEV, NT_STATUS_NOT_SAME_DEVICE",
        "ENAMETOOLONG, NT_STATUS_OBJECT_NAME_INVALID",
        "EISDIR, NT_STATUS_FILE_IS_A_DIRECTORY",
        "EMLINK, NT_STATUS_TOO_MANY_LINKS",
        "EAGAIN, NT_STATUS_LOCK_NOT_GRANTED",
        "EDEADLK, NT_STATUS_POSSIBLE_DEADLOCK",
        "EBUSY, NT_STATUS_SHARING_VIOLATION",
        "ENOMEM, NT_STATUS_NO_MEMORY",
        "EIO, NT_STATUS_IO_DEVICE_ERROR",
        "EINTR, NT_STATUS_RETRY",
        "ELOOP, NT_STATUS_OBJECT_PATH_NOT_FOUND",
        "EOPNOTSUPP, NT_STATUS_NOT_SUPPORTED",
        "ESRCH, NT_STATUS_UNSUCCESSFUL",
    })
    void fromErrno_followsSambasTable(Errno errno, String status) {
        assertEquals(status, NtStatus.fromErrno(errno, true).name());
        assertEquals(
                status,
                NtStatus.fromErrno(errno, false).name(),
                "only ENOENT/ENOTDIR depend on the parent");
    }

    @Test
    void fromErrno_ENOENT_inAnExistingDirectory_isObjectNameNotFound() {
        assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, NtStatus.fromErrno(Errno.ENOENT, true));
    }

    @Test
    void fromErrno_ENOENT_withTheDirectoryMissing_isObjectPathNotFound() {
        assertEquals(NtStatus.OBJECT_PATH_NOT_FOUND, NtStatus.fromErrno(Errno.ENOENT, false));
    }

    @Test
    void fromErrno_ENOTDIR_onTheLastComponent_isNotADirectory() {
        assertEquals(NtStatus.NOT_A_DIRECTORY, NtStatus.fromErrno(Errno.ENOTDIR, true));
    }

    @Test
    void fromErrno_ENOTDIR_onTheWay_isObjectPathNotFound() {
        assertEquals(NtStatus.OBJECT_PATH_NOT_FOUND, NtStatus.fromErrno(Errno.ENOTDIR, false));
    }

    @Test
    void fromErrno_everyErrno_hasAFailureStatus() {
        for (Errno e : Errno.values()) {
            assertTrue(
                    !NtStatus.fromErrno(e, true).isOk() && !NtStatus.fromErrno(e, false).isOk(),
                    e.name());
        }
    }

    @Test
    void parse_zeroCode_isOk() {
        assertEquals(NtStatus.OK, NtStatus.parse("0x00000000"));
        assertTrue(NtStatus.parse("0x0").isOk());
    }

    @Test
    void parse_knownCode_equalsItsName() {
        assertEquals(
                NtStatus.parse("NT_STATUS_OBJECT_PATH_NOT_FOUND"), NtStatus.parse("0xC000003A"));
        assertEquals(NtStatus.NO_SUCH_FILE, NtStatus.parse("0xc000000f"));
    }

    @Test
    void parse_unknownName_isKeptAndComparedByName() {
        NtStatus s = NtStatus.parse("NT_STATUS_SOMETHING_NEW");
        assertEquals("NT_STATUS_SOMETHING_NEW", s.name());
        assertEquals(s, NtStatus.parse("NT_STATUS_SOMETHING_NEW"));
        assertNotEquals(NtStatus.OK, s);
        assertNotEquals(NtStatus.UNSUCCESSFUL, s);
    }

    @Test
    void parse_unknownCode_isNamedByItsHexValue() {
        assertEquals("0xC0001234", NtStatus.parse("0xc0001234").name());
    }

    @Test
    void parse_anythingElse_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> NtStatus.parse("SUCCESS"));
        assertThrows(IllegalArgumentException.class, () -> NtStatus.parse("0xZZ"));
        assertThrows(IllegalArgumentException.class, () -> NtStatus.parse("0x100000000"));
        assertThrows(IllegalArgumentException.class, () -> NtStatus.parse("NT_STATUS_"));
    }
}
