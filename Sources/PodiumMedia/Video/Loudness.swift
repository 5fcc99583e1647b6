import Foundation

/// The loudness every packaged clip's sound is normalised to (EBU R128, ffmpeg's `loudnorm`), so
/// one clip on a stage is not much louder than the next (issue #41). Packaging measures the
/// upload first (``LoudnessMeasurement``, loudnorm's first pass) and then applies the
/// normalisation with those measurements (its second pass, linear when it can) in the audio
/// encode every rung shares.
public struct LoudnessTarget: Sendable, Equatable {
    /// Integrated loudness, LUFS (-70 to -5).
    public var integrated: Double
    /// Maximum true peak, dBTP (-9 to 0).
    public var truePeak: Double
    /// Loudness range, LU (1 to 50).
    public var range: Double

    /// -16 LUFS, -1.5 dBTP, 11 LU: the usual target for speech and lecture video on the web.
    public init(integrated: Double = -16, truePeak: Double = -1.5, range: Double = 11) {
        self.integrated = min(-5, max(-70, integrated))
        self.truePeak = min(0, max(-9, truePeak))
        self.range = min(50, max(1, range))
    }

    var options: String {
        "I=\(Self.number(integrated)):TP=\(Self.number(truePeak)):LRA=\(Self.number(range))"
    }

    /// The first pass's filter: measures and prints its findings as JSON (on standard error).
    var measuringFilter: String { "loudnorm=\(options):print_format=json" }

    /// The second pass's filter: normalises with what the first pass measured.
    func normalisingFilter(_ measured: LoudnessMeasurement) -> String {
        "loudnorm=\(options):measured_I=\(Self.number(measured.inputIntegrated))"
            + ":measured_TP=\(Self.number(measured.inputTruePeak)):measured_LRA=\(Self.number(measured.inputRange))"
            + ":measured_thresh=\(Self.number(measured.inputThreshold)):offset=\(Self.number(measured.targetOffset))"
            + ":linear=true:print_format=none"
    }

    /// A first playable rendition's filter (see ``VideoPackager/packageFirstRendition(_:probed:into:loudness:progress:)``):
    /// the same linear gain the second pass applies when it can (the target's loudness less the
    /// measured one), lowered so the measured true peak stays under the target's, as a plain
    /// `volume`. The second pass's `loudnorm` resamples to 192 kHz to watch the true peak: in a
    /// 10-minute clip it cost 9.5 s of CPU of the 18.5 of the first rendition's sound.
    func gainFilter(_ measured: LoudnessMeasurement) -> String {
        "volume=\(Self.number(linearGain(measured)))dB"
    }

    /// Decibels: the target's integrated loudness less the measured, at most what keeps the
    /// measured true peak at the target's.
    func linearGain(_ measured: LoudnessMeasurement) -> Double {
        min(integrated - measured.inputIntegrated, truePeak - measured.inputTruePeak)
    }

    static func number(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// What loudnorm's first pass measured in a clip (its `print_format=json` block).
public struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated loudness of the input, LUFS: what the API shows as a clip's `loudness`.
    public var inputIntegrated: Double
    public var inputTruePeak: Double
    public var inputRange: Double
    public var inputThreshold: Double
    public var targetOffset: Double

    public init(
        inputIntegrated: Double, inputTruePeak: Double, inputRange: Double, inputThreshold: Double, targetOffset: Double
    ) {
        self.inputIntegrated = inputIntegrated
        self.inputTruePeak = inputTruePeak
        self.inputRange = inputRange
        self.inputThreshold = inputThreshold
        self.targetOffset = targetOffset
    }

    /// The measurement in loudnorm's output (ffmpeg's standard error: its log lines, then a
    /// `[Parsed_loudnorm_0 @ …]` line and the JSON object). Its numbers are strings, and silence
    /// measures `-inf`: nil then (there is nothing to normalise), and nil when no block is found.
    public static func parse(_ output: String) -> LoudnessMeasurement? {
        guard let open = output.range(of: "{", options: .backwards).map(\.lowerBound),
            let close = output.range(of: "}", options: .backwards), open < close.lowerBound,
            let object = try? JSONSerialization.jsonObject(with: Data(output[open..<close.upperBound].utf8))
                as? [String: Any]
        else { return nil }
        func value(_ key: String) -> Double? {
            let number =
                (object[key] as? String).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                ?? (object[key] as? Double)
            return number.flatMap { $0.isFinite ? $0 : nil }
        }
        guard let integrated = value("input_i"), let truePeak = value("input_tp"), let range = value("input_lra"),
            let threshold = value("input_thresh"), let offset = value("target_offset")
        else { return nil }
        return LoudnessMeasurement(
            inputIntegrated: integrated, inputTruePeak: truePeak, inputRange: range, inputThreshold: threshold,
            targetOffset: offset)
    }
}
