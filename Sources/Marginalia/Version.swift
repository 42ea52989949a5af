public enum Marginalia { public static let version = "0.1.0" }
