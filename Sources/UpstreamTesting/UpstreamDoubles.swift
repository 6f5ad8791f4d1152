extension FixtureUpstream {
    /// Every upstream the fixture server plays: the one list (an upstream's double, its URL and its own modes
    /// are in its file in `Doubles/`).
    static func doubles() throws -> [any UpstreamDouble] {
        [
            try ZSGDouble(), try MeteoNewsDouble(), try FMIDouble(), try TransportDouble(), try OpenWeatherDouble(), try AlplakesDouble(),
            try TfNSWDouble(), try GeoapifyDouble(), try WikipediaDouble(), try FMIWarningsDouble(), try METNorwayDouble(),
        ]
    }
}
