
/// Upstream URLs as they may be shown: the value of every query parameter that carries a key or token
/// (OpenWeather's `appid`, Geoapify's `apiKey`, …) replaced by `REDACTED`. Errors, logs and captures only ever
/// see this form; the real URL exists only inside the request.
public enum URLRedaction {
    /// Parameter names (compared case-insensitively) whose values are secrets.
    public static let secretParameters: Set<String> = ["appid", "apikey", "api_key", "key", "token", "access_token", "client_secret"]

    public static func redact(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let query = url[url.index(after: question)...]
        var changed = false
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.firstIndex(of: "="), secretParameters.contains(pair[..<equals].lowercased()) else { return pair }
            changed = true
            return pair[...equals] + "REDACTED"
        }
        return changed ? url[...question] + pairs.joined(separator: "&") : url
    }
}
