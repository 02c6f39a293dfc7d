FROM python:3.11-slim
# A regular (non-editable) install of the package, migrations included; the sources are
# removed afterwards, so the server runs the installed copy.
COPY pyproject.toml README.md /tmp/sluice/
COPY app /tmp/sluice/app
RUN pip install --no-cache-dir /tmp/sluice && rm -rf /tmp/sluice
ENV SLUICE_DATA_DIR=/var/lib/sluice
WORKDIR /var/lib/sluice
VOLUME /var/lib/sluice
EXPOSE 8080
STOPSIGNAL SIGTERM
ENTRYPOINT ["python", "-m", "app"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
