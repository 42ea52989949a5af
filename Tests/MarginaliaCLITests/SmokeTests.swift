import Testing
@Test func cliSmoke() { #expect(1 + 1 == 2) }
