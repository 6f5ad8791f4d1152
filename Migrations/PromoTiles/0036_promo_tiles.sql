-- Next Wave's promo tiles (module PromoTiles): the one set the app is shown, imported whole by
-- `pier promo-tiles import` and replaced whole (one row, so a reader sees the old set or the new one, never half).
CREATE TABLE promo_tile_sets (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    -- The set as served, checked again when read (PromoTileFile).
    document text NOT NULL,
    tiles integer NOT NULL,
    imported_at timestamptz NOT NULL DEFAULT now()
);
