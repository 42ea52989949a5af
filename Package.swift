// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Marginalia",
    // Linux is where it is built and tested; on Apple's systems SQLite and zlib come from the SDK.
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "Marginalia", targets: ["Marginalia"]),
        .executable(name: "marginalia", targets: ["MarginaliaCLI"]),
        .executable(name: "marginalia-bench", targets: ["MarginaliaBench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // SHA-256 for the sync folder's file records: the system's libcrypto on Linux; CryptoKit on Apple's systems.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // Snowball's stemmers, for the word forms a content build records (Debian's libstemmer-dev has no
        // pkg-config file: the module map links it by name).
        .systemLibrary(
            name: "CStemmer",
            providers: [.apt(["libstemmer-dev"])]
        ),
        // The rank function of a reader's search (its tiers and bm25 in one FTS5 pass), an FTS5 auxiliary function
        // in C as the FTS5 API is.
        .target(
            name: "CSearchRank",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        .target(
            name: "Marginalia",
            dependencies: ["CSQLite", "CZlib", "CSearchRank", .target(name: "CCrypto", condition: .when(platforms: [.linux])),
                           .target(name: "CStemmer", condition: .when(platforms: [.linux]))]
        ),
        .executableTarget(
            name: "MarginaliaCLI",
            dependencies: ["Marginalia"]
        ),
        .executableTarget(
            name: "MarginaliaBench",
            // CSQLite directly, an exception to the layering rule: the benchmarks measure the library against the
            // same SQL run through the C API (with the search's rank function, CSearchRank). MarginaliaCLI so that building the benchmarks builds the `marginalia`
            // binary whose peak memory they measure.
            dependencies: ["Marginalia", "CSQLite", "CSearchRank", "MarginaliaCLI"]
        ),
        // Test-only: an SQLite VFS that simulates power loss and injects I/O errors. No product depends on it.
        .target(
            name: "CrashVFS",
            path: "Tests/CrashVFS",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        // Test-only: what both test targets share (a seeded generator, a child-process runner); no product uses it.
        .target(
            name: "MarginaliaTestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "MarginaliaTests",
            dependencies: ["Marginalia", "CrashVFS", "MarginaliaTestSupport"]
        ),
        .testTarget(
            name: "MarginaliaCLITests",
            // Depends on the executable so that `swift test` builds the binary these tests run.
            dependencies: ["Marginalia", "MarginaliaCLI", "MarginaliaTestSupport"]
        ),
    ]
)
