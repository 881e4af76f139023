package dev.seqvfs.fuse;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The FUSE mount is a front end (DESIGN.md, "Front ends"): a client of the engine's public API
 * ({@code SeqVfs}, {@code VfsTask}, {@code AsyncVfsTask} and the protocol types) and nothing more.
 * A front end that reaches into the engine's actors, snapshots or walk fails the build here.
 */
class FrontEndBoundariesTest {
    @Test
    void fuse_usesOnlyTheEnginesPublicApi() {
        JavaClasses frontEnd =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.seqvfs.fuse");
        noClasses()
                .that()
                .resideInAnyPackage("dev.seqvfs.fuse..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.seqvfs.engine.(*)..")
                .because(
                        "front ends use the public API in dev.seqvfs.engine and dev.seqvfs.protocol only")
                .check(frontEnd);
    }
}
