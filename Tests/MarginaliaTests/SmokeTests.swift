import Testing
@testable import Marginalia
@Test func version() { #expect(Marginalia.version == "0.1.0") }
