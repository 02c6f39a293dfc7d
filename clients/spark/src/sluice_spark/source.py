"""The ``sluice`` data source: which reader or writer a query gets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)

from sluice_spark import options as _options
from sluice_spark.options import OptionError, Options
from sluice_spark.rows import SCHEMA, SHARE_SCHEMA

if TYPE_CHECKING:
    from pyspark.sql.types import StructType


class SluiceDataSource(DataSource):
    """``spark.read.format("sluice")``, ``readStream``, ``write`` and ``writeStream``; the
    options are in the README's table."""

    @classmethod
    def name(cls) -> str:
        return "sluice"

    def _opts(self, *, need_topic: bool = True) -> Options:
        return _options.parse(self.options, need_topic=need_topic)

    def schema(self) -> str:
        opts = {k.lower(): v for k, v in self.options.items()}
        return SHARE_SCHEMA if opts.get("sharegroup") else SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        from sluice_spark.reader import BatchReader

        opts = self._opts()
        if opts.share_group is not None:
            raise OptionError(
                "option shareGroup: a share group is read as a stream (spark.readStream); "
                "a batch read goes by offsets"
            )
        return BatchReader(opts)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        opts = self._opts()
        if opts.share_group is not None:
            from sluice_spark.share import ShareStreamReader

            return ShareStreamReader(opts)
        from sluice_spark.reader import OffsetStreamReader

        return OffsetStreamReader(opts)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        from sluice_spark.writer import BatchWriter, check_schema

        if overwrite:
            raise OptionError(
                'sluice topics are append-only: use .mode("append") (mode overwrite would '
                "need to delete what the topic holds)"
            )
        return BatchWriter(self._opts(need_topic=False), check_schema(schema))

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        """``overwrite`` is the complete output mode: each micro-batch appends the whole
        result (a reader keeps the last record of each key), as Spark's Kafka sink does."""
        from sluice_spark.writer import StreamWriter, check_schema

        return StreamWriter(self._opts(need_topic=False), check_schema(schema))
