import Foundation

/// MET Norway's forecast for a cell as Pier keeps it: the forecast, until when MET asks not to be asked again
/// (`Expires`), and the `Last-Modified` to send back.
struct METNorwayHeld: Sendable {
    var forecast: Forecast
    var expires: Date
    var lastModified: String?
}
