-- MET Norway's stand-in forecasts are kept as MET's own steps (the METNorway module's `[[epoch, t, ws, wd, h, p,
-- precipitation, period hours, "symbol"], …]`) instead of the weather's hours with its symbol numbers, so that the
-- module that asks MET keeps them without knowing who uses them. The rows are a cache of MET's answers: the old
-- layout is dropped and MET is asked again for a cell the next time FMI cannot answer for it.
DELETE FROM metno_forecasts;
